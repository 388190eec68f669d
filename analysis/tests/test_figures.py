import os
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")

from fdsim_analysis.aggregate import attach_point_configs  # noqa: E402
from fdsim_analysis.errors import AnalysisInputError  # noqa: E402
from fdsim_analysis.figures import (figure_cdf, figure_geode_gc,  # noqa: E402
                                             figure_loadsharing, figure_qos_tradeoff)
from fdsim_analysis.loading import RunResult, load_sweep  # noqa: E402
from fdsim_analysis.plotting import save_figure  # noqa: E402
from . import fixtures  # noqa: E402


def legend_labels(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def figure_legend_labels(fig):
    """The legend of the figure (below the panels), else of its last axes."""
    if fig.legends:
        return [t.get_text() for t in fig.legends[0].get_texts()]
    return legend_labels(fig.axes[-1])


def data_lines(ax):
    """The plotted series in drawing order: error-bar data lines (whose label sits on their
    container) and labelled plain lines (CDF steps); not bars, caps or reference lines."""
    series = {id(c.lines[0]): c.lines[0] for c in ax.containers}
    return [ln for ln in ax.get_lines()
            if id(ln) in series or not ln.get_label().startswith("_")]


class FigureTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def sweep(self, writer, **kw):
        out = os.path.join(self.dir, "out")
        writer(out, **kw)
        s = load_sweep(out)
        return attach_point_configs(s.aggregate, s), s


class LoadSharingFigure(FigureTest):
    def test_one_line_per_arm_against_load_with_labelled_axes(self):
        table, _ = self.sweep(fixtures.write_ls_sweep)
        fig = figure_loadsharing(table)
        ax = fig.axes[0]
        self.assertEqual(len(fig.axes), 1)
        self.assertEqual(ax.get_xlabel(), "arrival rate (1/s)")
        self.assertEqual(ax.get_ylabel(), "P(dynamic failure)")
        self.assertEqual(ax.get_yscale(), "linear")
        self.assertEqual(legend_labels(ax), list(fixtures.LS_ARMS))
        lines = data_lines(ax)
        self.assertEqual(len(lines), 3)
        self.assertEqual(list(lines[0].get_xdata()), list(fixtures.LS_LOADS))
        row = table.row(2, "none", "dynamic_failure_ratio")
        self.assertAlmostEqual(lines[0].get_ydata()[2], row.mean)

    def test_error_bars_are_the_aggregate_half_widths(self):
        table, _ = self.sweep(fixtures.write_ls_sweep)
        ax = figure_loadsharing(table).axes[0]
        self.assertEqual(len(ax.containers), 3)
        bars = ax.containers[0].lines[2][0].get_segments()   # arm "none", vertical bars
        self.assertEqual(len(bars), 3)
        for (x, lo), (_, hi) in bars:
            point = fixtures.LS_LOADS.index(x)
            row = table.row(point, "none", "dynamic_failure_ratio")
            self.assertAlmostEqual(lo, row.mean - row.ci95_half_width)
            self.assertAlmostEqual(hi, row.mean + row.ci95_half_width)

    def test_difference_panel_shows_non_reference_arms(self):
        table, _ = self.sweep(fixtures.write_ls_sweep)
        fig = figure_loadsharing(table, diff=True, arms=["none", "oracle"])
        self.assertEqual(len(fig.axes), 2)
        ax, dax = fig.axes
        # The difference panel draws only the non-reference arms; side by side, one legend of
        # every arm sits right of it (a legend right of the left panel would cover it).
        self.assertEqual([c.get_label() for c in dax.containers], ["oracle"])
        self.assertEqual(legend_labels(dax), ["none", "oracle"])
        self.assertIsNone(ax.get_legend())
        self.assertEqual(dax.get_ylabel(), "\u0394 P(dynamic failure) vs none")
        self.assertAlmostEqual(data_lines(dax)[0].get_ydata()[0],
                               table.row(0, "oracle", "dynamic_failure_ratio").diff_mean)

    def test_an_arm_keeps_its_colour_and_marker_in_the_difference_panel(self):
        table, _ = self.sweep(fixtures.write_ls_sweep)
        fig = figure_loadsharing(table, diff=True, arms=["none", "oracle"])
        ax, dax = fig.axes
        left = {c.get_label(): c.lines[0] for c in ax.containers}
        right = {c.get_label(): c.lines[0] for c in dax.containers}
        self.assertEqual(right["oracle"].get_color(), left["oracle"].get_color())
        self.assertEqual(right["oracle"].get_marker(), left["oracle"].get_marker())
        self.assertNotEqual(left["none"].get_color(), left["oracle"].get_color())

    def test_two_varying_axes_need_where(self):
        table, _ = self.sweep(fixtures.write_geode_sweep)
        with self.assertRaisesRegex(AnalysisInputError,
                                    r"axis profile \(\$\.membership\.profile\) varies besides "
                                    r"the x axis member_timeout_ms: fix it with --where "
                                    r"AXIS=VALUE .* --facet AXIS \(e\.g\. --facet profile\)"):
            figure_loadsharing(table, metric="geode_false_removals",
                               x_axis="$.membership.member_timeout_ms")
        with self.assertRaisesRegex(AnalysisInputError, "non-numeric"):
            figure_loadsharing(table, metric="geode_false_removals",
                               x_axis="$.membership.profile",
                               where={"$.membership.member_timeout_ms": 2000})
        fig = figure_loadsharing(table, metric="geode_false_removals",
                                 where={"$.membership.profile": "wiki"})
        self.assertEqual(fig.axes[0].get_xlabel(), "member timeout (ms)")

    def test_missing_metric_names_the_role(self):
        table, _ = self.sweep(fixtures.write_qos_sweep)
        with self.assertRaisesRegex(AnalysisInputError,
                                    "dynamic_failure_ratio.*dynamic_failure_probability"):
            figure_loadsharing(table)


class QosFigure(FigureTest):
    def test_mistake_rate_log_against_detection_time_one_curve_per_detector(self):
        table, _ = self.sweep(fixtures.write_qos_sweep)
        notes = []
        fig = figure_qos_tradeoff(table, notes=notes)
        ax = fig.axes[0]
        self.assertEqual(ax.get_yscale(), "log")
        self.assertEqual(ax.get_xscale(), "linear")
        self.assertEqual(ax.get_xlabel(), "Mean detection time (s)")
        self.assertEqual(ax.get_ylabel(), "Mistake rate (1/s)")
        # The swept parameter that moves along phi's curve is named in its legend entry and
        # its values are written at the points; fixed does not depend on it.
        self.assertCountEqual(legend_labels(ax), ["phi (phi_accrual) [threshold]", "fixed",
                                             "0 (not on the log axis)"])
        self.assertEqual(sorted(t.get_text() for t in ax.texts), ["12", "4", "8"])
        phi, fixed = data_lines(ax)[:2]
        self.assertEqual(len(phi.get_xdata()), 3)        # one marker per threshold
        self.assertEqual(list(phi.get_xdata()), sorted(phi.get_xdata()))
        self.assertEqual(len(fixed.get_xdata()), 2)      # the zero is not on the log curve...
        zero_marks = [ln for ln in ax.get_lines() if ln.get_marker() == "v"
                      and len(ln.get_xdata()) == 1]
        self.assertEqual(len(zero_marks), 1)             # ...but marked on the bottom edge
        self.assertAlmostEqual(zero_marks[0].get_xdata()[0], 3.505)
        self.assertEqual(zero_marks[0].get_ydata()[0], ax.get_ylim()[0])
        self.assertEqual(notes, [])

    def test_axes_varying_independently_along_a_curve_are_refused_zipped_ones_not(self):
        grid = [{"$.a": a, "$.b": b} for a in (1, 2) for b in (10, 20)]
        zipped = [{"$.a": 1, "$.b": 10}, {"$.a": 2, "$.b": 20}]
        for points, expected in ((grid, 1), (zipped, 0)):
            out = os.path.join(self.dir, f"s{expected}")

            def make_run(params, rep):
                doc = fixtures.qos_run({fixtures.QOS_AXIS: params["$.a"] * 4 + params["$.b"]},
                                       rep)
                doc["manifest"]["resolved_config"].update(a=params["$.a"], b=params["$.b"])
                return doc
            fixtures.write_sweep(out, ["$.a", "$.b"], points, make_run, 2)
            s = load_sweep(out)
            table = attach_point_configs(s.aggregate, s)
            if expected:
                # The one rule: refused with the fix, never a zig-zag with a note.
                with self.assertRaisesRegex(AnalysisInputError,
                                            r"axis b \(\$\.b\) varies besides a along the "
                                            r"curve of phi .*--where AXIS=VALUE.*--facet b"):
                    figure_qos_tradeoff(table)
                fig = figure_qos_tradeoff(table, facet="b")
                self.assertEqual([ax.get_title() for ax in fig.axes if ax.get_visible()],
                                 ["b = 10", "b = 20"])
                figure_qos_tradeoff(table, where={"$.b": 10})
            else:
                figure_qos_tradeoff(table)

    def test_arms_of_one_scenario_group_by_detector_kind(self):
        out = os.path.join(self.dir, "single")
        fixtures.write_qos_sweep(out, thresholds=(8,))
        s = load_sweep(out)
        table = attach_point_configs(s.aggregate, s)
        ax = figure_qos_tradeoff(table).axes[0]
        self.assertEqual(legend_labels(ax), ["phi_accrual", "fixed"])


class CdfFigure(FigureTest):
    def test_one_step_line_per_profile_and_member_timeout(self):
        _, sweep = self.sweep(fixtures.write_geode_sweep)
        fig = figure_cdf(sweep.runs(), arms=["fixed"])
        self.assertEqual(len(fig.axes), 2)
        det, rem = fig.axes
        self.assertEqual(det.get_xlabel(), "Crash to first suspicion (s)")
        self.assertEqual(rem.get_xlabel(), "Crash to removal (new view) (s)")
        self.assertEqual(det.get_ylabel(), "Empirical CDF")
        self.assertEqual(det.get_ylim(), (0.0, 1.0))
        self.assertEqual(figure_legend_labels(fig), [
            "current, M=2000 ms", "current, M=5000 ms", "wiki, M=2000 ms", "wiki, M=5000 ms"])
        lines = data_lines(rem)
        self.assertEqual(len(lines), 4)
        # wiki, M = 5000: 2 replications x 3 crashes; the step starts at 0 and ends at 1.
        ys = list(lines[3].get_ydata())
        self.assertEqual(len(ys), 7)
        self.assertEqual((ys[0], ys[-1]), (0.0, 1.0))
        self.assertAlmostEqual(lines[3].get_xdata()[1], 5.5)

    def test_several_arms_get_their_own_lines(self):
        _, sweep = self.sweep(fixtures.write_geode_sweep)
        fig = figure_cdf(sweep.runs(), lists=("geode_removal_times",))
        self.assertEqual(len(fig.axes), 1)
        self.assertEqual(len(data_lines(fig.axes[0])), 8)
        self.assertEqual(figure_legend_labels(fig)[:2], ["current, M=2000 ms, fixed",
                                                         "current, M=2000 ms, phi"])

    def test_without_lists_falls_back_to_per_run_values_with_a_note(self):
        _, sweep = self.sweep(fixtures.write_geode_sweep, with_lists=False)
        notes = []
        fig = figure_cdf(sweep.runs(), lists=("geode_removal_times",), arms=["fixed"],
                         notes=notes)
        self.assertEqual(len(data_lines(fig.axes[0])[0].get_xdata()), 3)  # 2 runs + origin
        self.assertIn("one sample per run", notes[0])
        self.assertIn("their mean stands for them", notes[1])   # 3 crashes per run

    def test_summary_of_one_crash_per_run_is_exact(self):
        runs = []
        for rep, t in enumerate((4.0, 6.0, 5.0)):
            doc = fixtures.geode_run("wiki", 5000, rep, with_lists=False)
            for arm in doc["metrics"].values():
                arm["detection_removal_s"] = {"mean": t, "min": t, "p50": t, "max": t,
                                              "count": 1}
            runs.append(RunResult(f"r{rep}.json", doc["manifest"], doc["metrics"]))
        notes = []
        fig = figure_cdf(runs, lists=("geode_removal_times",), arms=["fixed"], notes=notes)
        line = data_lines(fig.axes[0])[0]
        self.assertEqual(list(line.get_xdata()), [4.0, 4.0, 5.0, 6.0])
        self.assertEqual(len(notes), 2)
        self.assertEqual(notes[1], "figure cdf: 3 run(s); each line pools the per-run lists of "
                                   "the runs with equal $.membership.profile, "
                                   "$.membership.member_timeout_ms")

    def test_no_list_anywhere_is_an_error(self):
        _, sweep = self.sweep(fixtures.write_ls_sweep)
        with self.assertRaisesRegex(AnalysisInputError,
                                    "no run has metrics at detection_removal_s.samples_s"):
            figure_cdf(sweep.runs(), lists=("geode_removal_times",))


class GeodeGcFigure(FigureTest):
    def test_fixed_versus_adaptive_curves_split_by_profile(self):
        table, _ = self.sweep(fixtures.write_geode_sweep)
        ax = figure_geode_gc(table).axes[0]
        self.assertEqual(ax.get_xlabel(), "Mean removal time (s)")
        self.assertEqual(ax.get_ylabel(), "False removals per run")
        # The member timeout varies along every curve: its name in the legend, its values at
        # the points (2 per curve; labels that would overprint another are left out).
        self.assertEqual(legend_labels(ax), [
            "fixed, profile=current [member_timeout_ms]",
            "phi (adaptive: phi_accrual), profile=current [member_timeout_ms]",
            "fixed, profile=wiki [member_timeout_ms]",
            "phi (adaptive: phi_accrual), profile=wiki [member_timeout_ms]"])
        for line in data_lines(ax):
            self.assertEqual(len(line.get_xdata()), 2)   # the two member-timeouts
        texts = {t.get_text() for t in ax.texts}
        self.assertTrue(texts)
        self.assertTrue(texts <= {f"{m:g}" for _, params in table.points()
                                  for m in [params["$.membership.member_timeout_ms"]]})
        self.assertEqual(ax.get_ylim()[0], 0.0)          # a count axis starts at zero

    def test_one_profile(self):
        table, _ = self.sweep(fixtures.write_geode_sweep)
        ax = figure_geode_gc(table, where={"$.membership.profile": "wiki"}).axes[0]
        self.assertEqual(legend_labels(ax), ["fixed [member_timeout_ms]",
                                             "phi (adaptive: phi_accrual) [member_timeout_ms]"])


class Saving(FigureTest):
    def test_png_and_svg_are_written(self):
        table, _ = self.sweep(fixtures.write_ls_sweep)
        paths = save_figure(figure_loadsharing(table), os.path.join(self.dir, "figs"), "ls")
        self.assertEqual([os.path.basename(p) for p in paths], ["ls.png", "ls.svg"])
        with open(paths[0], "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(paths[1], encoding="utf-8") as f:
            svg = f.read()
        self.assertIn("<svg", svg)
        self.assertIn("arrival rate (1/s)", svg)

    def test_the_same_figure_gives_the_same_svg_bytes(self):
        table, _ = self.sweep(fixtures.write_ls_sweep)
        texts = []
        for name in ("a", "b"):
            (path,) = save_figure(figure_loadsharing(table), self.dir, name, ("svg",))
            with open(path, "rb") as f:
                texts.append(f.read())
        self.assertEqual(texts[0], texts[1])


if __name__ == "__main__":
    unittest.main()
