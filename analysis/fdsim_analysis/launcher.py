"""The `fdsim-analysis` command: check the dependencies, then run the CLI.

Contract: main(argv) returns the exit status of fdsim_analysis.cli.main, or 2 after printing
one line to stderr when numpy or matplotlib cannot be imported (never a traceback for that).
It is the target of `python3 -m fdsim_analysis`, of the console script that pyproject.toml
declares, and of the launcher scripts/fdsim-analysis (installed as bin/fdsim-analysis).
"""

import sys

from ._deps import dependency_problem


def main(argv=None):
    problem = dependency_problem()
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    from .cli import main as cli_main
    return cli_main(argv)
