"""The third-party modules the package needs, checked once, reported in one line.

Contract: dependency_problem() imports numpy and matplotlib and returns None when both import,
else one line naming the interpreter, the module that failed and how to get it. Nothing else
in the package imports a third-party module before this check has passed (the package
__init__ and the command-line launcher both call it first).
"""

import sys

REQUIRED = ("numpy", "matplotlib")


def dependency_problem():
    """None if every module of REQUIRED imports, else a one-line message."""
    for name in REQUIRED:
        try:
            __import__(name)
        except ImportError as e:
            return (f"fdsim-analysis needs numpy and matplotlib, but {sys.executable} cannot "
                    f"import {name} ({e}); on Debian: apt-get install python3-numpy "
                    f"python3-matplotlib and run with /usr/bin/python3 (or set FDSIM_PYTHON "
                    f"to an interpreter that has them)")
    return None
