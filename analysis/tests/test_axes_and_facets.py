"""Named axes, multi-value --where, the one rule for figures when axes vary besides x, facets,
`figure metric` and `figure cdf --where` (issue 28), on a three-axis sweep whose metrics are
known exactly (fixtures.pause_run)."""

import contextlib
import io
import os
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")

from fdsim_analysis import cli  # noqa: E402
from fdsim_analysis.aggregate import AnyOf, attach_point_configs  # noqa: E402
from fdsim_analysis.errors import AnalysisInputError  # noqa: E402
from fdsim_analysis.figures import (figure_cdf, figure_metric, parse_where)  # noqa: E402
from fdsim_analysis.loading import load_sweep  # noqa: E402
from fdsim_analysis.tables import metric_table, to_csv  # noqa: E402
from . import fixtures  # noqa: E402

NAMES = {fixtures.PAUSE_AXIS: "pause", fixtures.LS_AXIS: "load"}


def visible_titles(fig):
    return [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()]


def legend_texts(fig):
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg:
            return [t.get_text() for t in leg.get_texts()]
    return []


class AxesTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.named = os.path.join(self.dir, "named")
        self.unnamed = os.path.join(self.dir, "unnamed")
        fixtures.write_pause_sweep(self.named, axis_names=NAMES)
        fixtures.write_pause_sweep(self.unnamed)

    def tearDown(self):
        self._tmp.cleanup()

    def table(self, out):
        s = load_sweep(out)
        t = attach_point_configs(s.aggregate, s)
        t.axis_names = dict(s.manifest.axis_names)
        return t

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = cli.main([str(a) for a in argv])
        return code, out.getvalue(), err.getvalue()


class NamedAxes(AxesTest):
    def test_labels_are_names_else_unambiguous_last_keys_else_paths(self):
        t = self.table(self.named)
        self.assertEqual([t.axis_label(a) for a in t.axes], ["pause", "profile", "load"])
        u = self.table(self.unnamed)
        # "ms" is a bare unit: the full path, never "ms".
        self.assertEqual([u.axis_label(a) for a in u.axes],
                         [fixtures.PAUSE_AXIS, "profile", "arrival_rate_per_s"])
        self.assertEqual(t.resolve_axis("pause"), fixtures.PAUSE_AXIS)
        self.assertEqual(t.resolve_axis(fixtures.PAUSE_AXIS), fixtures.PAUSE_AXIS)
        with self.assertRaisesRegex(AnalysisInputError, r"--where ms: not an axis of this sweep "
                                    r"\(axes: \$\.faults\[0\]\.pause\.ms, profile "
                                    r"\(\$\.membership\.profile\), arrival_rate_per_s "):
            u.select({"ms": 100})

    def test_table_columns_use_the_names(self):
        code, out, _ = self.run_cli("table", "--sweep", self.named, "--metric",
                                    "dynamic_failure_ratio", "--format", "csv", "--no-diff")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("point,pause,profile,load,arm,dynamic_failure_ratio mean"),
                        out[:80])
        code, out, _ = self.run_cli("table", "--sweep", self.unnamed, "--metric",
                                    "dynamic_failure_ratio", "--format", "csv", "--no-diff")
        self.assertTrue(out.startswith(f"point,{fixtures.PAUSE_AXIS},profile,arrival_rate_per_s,"
                                       "arm,"), out[:80])

    def test_legends_use_the_names(self):
        fig = figure_metric(self.table(self.named), "dynamic_failure_ratio", x_axis="load",
                            hue="pause", where={"profile": "wiki"}, arms=["fixed"])
        self.assertEqual(legend_texts(fig), ["pause=100", "pause=500"])
        fig = figure_metric(self.table(self.unnamed), "dynamic_failure_ratio",
                            x_axis=fixtures.LS_AXIS, hue=fixtures.PAUSE_AXIS,
                            where={"profile": "wiki"}, arms=["fixed"])
        self.assertEqual(legend_texts(fig), [f"{fixtures.PAUSE_AXIS}=100",
                                             f"{fixtures.PAUSE_AXIS}=500"])


class WhereLists(AxesTest):
    def test_parse(self):
        self.assertEqual(parse_where(["a=1"]), {"a": 1})
        w = parse_where(["a=1,2", "b=wiki", "b=current", "c=[1,2]", 'd="x,y"'])
        self.assertEqual(w["a"], AnyOf([1, 2]))
        self.assertIsInstance(w["a"], AnyOf)
        self.assertEqual(w["b"], AnyOf(["wiki", "current"]))
        self.assertEqual(w["c"], [1, 2])            # one JSON array value
        self.assertNotIsInstance(w["c"], AnyOf)
        self.assertEqual(w["d"], "x,y")
        self.assertEqual(parse_where(['e=[1,2],[3]'])["e"], AnyOf([[1, 2], [3]]))
        with self.assertRaisesRegex(AnalysisInputError, "expected AXIS=VALUE"):
            parse_where(["a"])

    def test_list_and_repeat_are_or_and_the_values_are_shown(self):
        t = self.table(self.named)
        for where in ({"pause": AnyOf([100, 500]), "load": 0.9},
                      parse_where(["pause=100", "pause=500", "load=0.9"])):
            table = metric_table(t, ["dynamic_failure_ratio"], where=where, diff=False)
            self.assertEqual(table.columns[:4], ["point", "pause", "profile", "load"])
            self.assertEqual(sorted({(r[1], r[3]) for r in table.rows}), [(100, 0.9), (500, 0.9)])
            self.assertEqual(len(table.rows), 2 * 2 * 2)
        code, out, _ = self.run_cli("summary", self.named, "--where", "pause=100,500",
                                    "--where", "load=0.9", "--where", "profile=wiki")
        self.assertEqual(code, 0)
        self.assertIn("where pause = 100, 500; load = 0.9; profile = wiki", out.splitlines()[0])
        self.assertIn("| point | pause | profile | load | arm |", out)

    def test_an_unknown_value_names_the_values_present(self):
        code, _, err = self.run_cli("table", "--sweep", self.named, "--metric",
                                    "dynamic_failure_ratio", "--where", "pause=100,200")
        self.assertEqual(code, 2)
        self.assertIn("--where pause: no point has 200 (values of $.faults[0].pause.ms: 100, 500)",
                      err)


class OneRuleForFigures(AxesTest):
    def test_every_figure_refuses_other_varying_axes_with_the_fix(self):
        cases = [
            (["figure", "loadsharing", "--sweep", self.named], "the x axis load"),
            (["figure", "metric", "--sweep", self.named, "--x", "load", "--y",
              "dynamic_failure_ratio"], "the x axis load"),
            (["figure", "qos", "--sweep", self.named, "--x-metric", "geode_removal_time_mean",
              "--y-metric", "geode_false_removals"], "along the curve of fixed"),
            (["figure", "geode-gc", "--sweep", self.named], "along the curve of fixed"),
        ]
        for argv, what in cases:
            code, out, err = self.run_cli(*argv, "--out", self.dir)
            self.assertEqual(code, 2, (argv, err))
            self.assertEqual(out, "")
            self.assertIn(what, err)
            self.assertIn("--where AXIS=VALUE", err)
            self.assertIn("--facet AXIS", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_where_or_facet_is_the_fix(self):
        t = self.table(self.named)
        with self.assertRaisesRegex(AnalysisInputError, r"axis pause \(\$\.faults\[0\]\.pause\.ms\)"
                                    r" varies besides the x axis load"):
            figure_metric(t, "dynamic_failure_ratio", where={"profile": "wiki"})
        fig = figure_metric(t, "dynamic_failure_ratio", where={"profile": "wiki"}, facet="pause")
        self.assertEqual(visible_titles(fig), ["pause = 100", "pause = 500"])
        self.assertEqual(fig._suptitle.get_text(), "profile = wiki")
        # Each panel holds its own pause: y = f k load pause / 1000 (+ 0.001 rep, mean 0.0005).
        for ax, pause in zip([a for a in fig.axes if a.get_visible()], (100, 500)):
            fixed = ax.containers[0].lines[0]
            self.assertEqual(list(fixed.get_xdata()), [0.5, 0.9])
            for x, y in zip(fixed.get_xdata(), fixed.get_ydata()):
                self.assertAlmostEqual(y, x * pause / 1000.0 + 0.0005)

    def test_facet_on_each_figure_command(self):
        cases = [
            ["figure", "loadsharing", "--sweep", self.named, "--where", "profile=wiki",
             "--facet", "pause"],
            ["figure", "loadsharing", "--sweep", self.named, "--where", "profile=wiki",
             "--facet", "pause", "--diff"],
            ["figure", "metric", "--sweep", self.named, "--x", "load", "--y",
             "false_removals_count", "--where", "profile=wiki", "--facet", "pause"],
            ["figure", "qos", "--sweep", self.named, "--x-metric", "geode_removal_time_mean",
             "--y-metric", "geode_false_removals", "--where", "load=0.5", "--facet", "profile"],
            ["figure", "geode-gc", "--sweep", self.named, "--where", "load=0.5", "--facet",
             "profile"],
        ]
        for i, argv in enumerate(cases):
            code, out, err = self.run_cli(*argv, "--out", self.dir, "--name", f"f{i}",
                                          "--format", "png")
            self.assertEqual(code, 0, (argv, err))
            self.assertEqual(out.split(), [os.path.join(self.dir, f"f{i}.png")])

    def test_facet_panels_of_the_tradeoff_keep_one_style_per_curve(self):
        from fdsim_analysis.figures import figure_geode_gc
        fig = figure_geode_gc(self.table(self.named), where={"load": 0.5}, facet="profile")
        panels = [a for a in fig.axes if a.get_visible()]
        self.assertEqual([a.get_title() for a in panels], ["profile = current",
                                                           "profile = wiki"])
        colours = [{c.get_label(): c.lines[0].get_color() for c in a.containers} for a in panels]
        self.assertEqual(colours[0], colours[1])
        self.assertEqual(len(colours[0]), 2)


class CdfWhere(AxesTest):
    def test_where_selects_runs_and_the_pooling_is_stated(self):
        runs = load_sweep(self.named).runs()
        notes = []
        fig = figure_cdf(runs, lists=("geode_removal_times",), group_paths=(fixtures.PROFILE_AXIS,),
                         arms=["fixed"], notes=notes, where={"pause": 500},
                         axes=tuple(fixtures.PAUSE_AXES), axis_names=NAMES)
        # 2 profiles x 2 loads x 2 replications with pause 500; each line pools both loads.
        self.assertIn("figure cdf: 8 run(s) with pause = 500; each line pools the per-run lists "
                      "of the runs with equal $.membership.profile, across every value of load",
                      notes[-1])
        self.assertIn("(pooled over load)", fig._suptitle.get_text())
        for line in fig.axes[0].get_lines():
            if not line.get_label().startswith("_"):
                self.assertEqual(sorted(set(line.get_xdata())), [10.0])  # 5 + 500 / 100

    def test_cli_where_and_unknown_value(self):
        code, out, err = self.run_cli("figure", "cdf", "--sweep", self.named, "--list",
                                      "geode_removal_times", "--group-path",
                                      fixtures.PROFILE_AXIS, "--where", "pause=100",
                                      "--where", "load=0.5,0.9", "--out", self.dir,
                                      "--format", "png")
        self.assertEqual(code, 0, err)
        self.assertIn("across every value of load", err)
        code, out, err = self.run_cli("figure", "cdf", "--sweep", self.named, "--where",
                                      "pause=7", "--out", self.dir)
        self.assertEqual(code, 2)
        self.assertIn("--where pause: no run has 7 (values of $.faults[0].pause.ms: 100, 500)",
                      err)


if __name__ == "__main__":
    unittest.main()
