"""fdsim_analysis: figures and tables from fdsim result files.

Public API (see each module's contract):
- loading:  load_run, load_runs, load_manifest, load_aggregate, load_sweep (Sweep), RunResult
- aggregate: AggregateTable, AggRow, aggregate_runs, attach_point_configs
- stats:    student_t_quantile, student_t_cdf, summarize (Summary), paired_differences
- figures:  figure_loadsharing, figure_qos_tradeoff, figure_cdf, figure_geode_gc, figure_tradeoff
- plotting: new_figure, save_figure, line_with_ci, step_cdf, ecdf
- tables:   metric_table, to_markdown, to_csv, summary_markdown
- errors:   AnalysisInputError
Metric names: fdsim_analysis/metric_names.py (roles -> metric paths).
CLI: fdsim-analysis --help (scripts/fdsim-analysis), or python3 -m fdsim_analysis --help with
analysis/ on sys.path (pyproject.toml at the repository root installs it as a package).
The package imports the same way as `fdsim_analysis` and, from the repository root, as
`analysis.fdsim_analysis`: every import inside it is relative.
If numpy or matplotlib cannot be imported, importing the package still succeeds (so that the
launcher can say so in one line), and using any name of the public API raises ImportError with
that line; submodules that need neither (stats, paths, errors) stay usable.
Figures are made without pyplot (matplotlib.figure.Figure, rendered by Agg): importing this
package never changes the matplotlib backend.
"""

from ._deps import dependency_problem

_DEPENDENCY_PROBLEM = dependency_problem()
if _DEPENDENCY_PROBLEM is None:
    from .aggregate import AggRow, AggregateTable, aggregate_runs, attach_point_configs
    from .errors import AnalysisInputError
    from .figures import (figure_cdf, figure_geode_gc, figure_loadsharing,
                          figure_qos_tradeoff, figure_tradeoff)
    from .loading import (RunResult, Sweep, load_aggregate, load_manifest, load_run,
                          load_runs, load_sweep)
    from .plotting import ecdf, line_with_ci, new_figure, save_figure, step_cdf
    from .stats import (Summary, paired_differences, student_t_cdf,
                        student_t_quantile, summarize)
    from .tables import metric_table, summary_markdown, to_csv, to_markdown
else:
    def __getattr__(name):
        if name in __all__:
            raise ImportError(_DEPENDENCY_PROBLEM)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "AggRow", "AggregateTable", "aggregate_runs", "attach_point_configs", "AnalysisInputError",
    "figure_cdf", "figure_geode_gc", "figure_loadsharing", "figure_qos_tradeoff",
    "figure_tradeoff", "RunResult", "Sweep", "load_aggregate", "load_manifest", "load_run",
    "load_runs", "load_sweep", "ecdf", "line_with_ci", "new_figure", "save_figure", "step_cdf",
    "Summary", "paired_differences", "student_t_cdf", "student_t_quantile", "summarize",
    "metric_table", "summary_markdown", "to_csv", "to_markdown",
]
