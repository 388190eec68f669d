"""Errors of the analysis package.

Contract: every problem with the *input* (a missing file, a malformed result, an aggregate
without a needed column, a metric that is not in the data) raises AnalysisInputError with a
one-line message that starts with the file (or directory) it is about and names the missing or
bad item. The CLI prints the message and exits with status 2; anything else is a bug.
"""


class AnalysisInputError(Exception):
    """Bad or incomplete input: the message names the file and what is missing or wrong."""
