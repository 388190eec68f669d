"""Tests of the fdsim_analysis package.

They import the package as `fdsim_analysis`, so this folder's parent (analysis/, the package's
source root) is put on sys.path: the suite runs from the repository root
(python3 -m unittest discover -s analysis/tests -t .) and from analysis/
(python3 -m unittest discover -s tests -t .) alike.
"""

import os
import sys

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if SOURCE_ROOT not in sys.path:
    sys.path.insert(0, SOURCE_ROOT)
