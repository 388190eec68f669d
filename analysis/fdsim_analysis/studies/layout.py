"""Where a source checkout keeps what the studies read and write.

Contract: REPO_ROOT is the checkout this package lies in (analysis/fdsim_analysis/studies/ is
three levels below it). The studies' defaults (the fdsim binary build/fdsim, the declarations
studies/, the outputs results/) are relative to it; an installed copy of the
package has no checkout, and its callers pass every path explicitly.
"""

import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
