"""Figure layout rules (plotting.py contract): legends never cover data, distinct series
styles, count axes from zero, --size single honoured with --diff, and CDF titles that say when
per-run means stand in for single events."""

import os
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from analysis.fdsim_analysis.aggregate import attach_point_configs  # noqa: E402
from analysis.fdsim_analysis.figures import (figure_cdf, figure_loadsharing,  # noqa: E402
                                             figure_tradeoff)
from analysis.fdsim_analysis.loading import load_sweep  # noqa: E402
from analysis.fdsim_analysis.plotting import (legend, legend_outside, line_with_ci,  # noqa: E402
                                              new_figure, series_style, start_counts_at_zero)
from analysis.tests import fixtures  # noqa: E402


def overlaps(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def rendered_boxes(fig, ax):
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    return ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)


class SeriesStyles(unittest.TestCase):
    def test_forty_series_have_forty_distinct_styles(self):
        styles = [series_style(i) for i in range(40)]
        self.assertEqual(len(set(styles)), 40)

    def test_series_ten_apart_differ_in_marker_and_line_style(self):
        c0, m0, l0 = series_style(0)
        c10, m10, l10 = series_style(10)
        self.assertEqual(c0, c10)
        self.assertNotEqual(m0, m10)
        self.assertNotEqual(l0, l10)


class LegendPlacement(unittest.TestCase):
    def test_decision(self):
        self.assertFalse(legend_outside(1))
        self.assertFalse(legend_outside(4))
        self.assertTrue(legend_outside(5))
        self.assertTrue(legend_outside(20))

    def test_a_twenty_entry_legend_sits_outside_the_axes(self):
        fig, ax = new_figure("single")
        for i in range(20):
            line_with_ci(ax, [0, 1, 2], [i, i + 1, i + 0.5], [0.1] * 3, label=f"s{i}", index=i)
        legend(ax)
        leg, axes_box = rendered_boxes(fig, ax)
        self.assertFalse(overlaps(leg, axes_box), (leg, axes_box))
        self.assertGreaterEqual(leg.x0, axes_box.x1)

    def test_a_small_legend_stays_inside(self):
        fig, ax = new_figure("single")
        for i in range(3):
            line_with_ci(ax, [0, 1, 2], [i, i, i], label=f"s{i}", index=i)
        legend(ax)
        leg, axes_box = rendered_boxes(fig, ax)
        self.assertTrue(overlaps(leg, axes_box))


class AxisLimits(unittest.TestCase):
    def test_count_axes_start_at_zero_others_do_not(self):
        fig, ax = new_figure("single")
        ax.plot([1, 2], [50, 60])
        start_counts_at_zero(ax, x_path="detection_time_mean_s", y_path="false_removals_count")
        self.assertEqual(ax.get_ylim()[0], 0.0)
        self.assertGreater(ax.get_xlim()[0], 0.5)

    def test_a_log_count_axis_is_left_alone(self):
        fig, ax = new_figure("single")
        ax.plot([1, 2], [50, 60])
        ax.set_yscale("log")
        start_counts_at_zero(ax, y_path="suspicions_count")
        self.assertGreater(ax.get_ylim()[0], 0.0)


class FigureOptions(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self._tmp.name, "out")

    def tearDown(self):
        self._tmp.cleanup()

    def test_size_single_with_diff_stacks_the_panels_in_one_column(self):
        fixtures.write_ls_sweep(self.out)
        s = load_sweep(self.out)
        table = attach_point_configs(s.aggregate, s)
        fig = figure_loadsharing(table, diff=True, size="single")
        self.assertEqual(len(fig.axes), 2)
        self.assertAlmostEqual(fig.get_size_inches()[0], 3.4)
        top, bottom = (ax.get_position() for ax in fig.axes)
        self.assertGreater(top.y0, bottom.y0)
        wide = figure_loadsharing(table, diff=True)  # default: side by side, double width
        self.assertAlmostEqual(wide.get_size_inches()[0], 7.0)

    def test_tradeoff_with_a_count_axis_starts_at_zero(self):
        fixtures.write_geode_sweep(self.out)
        s = load_sweep(self.out)
        table = attach_point_configs(s.aggregate, s)
        fig = figure_tradeoff(table, "detection_removal_s.mean", "false_removals_count",
                              split_by=["$.membership.profile"])
        self.assertEqual(fig.axes[0].get_ylim()[0], 0.0)

    def test_cdf_title_says_when_per_run_means_stand_in(self):
        fixtures.write_geode_sweep(self.out, with_lists=False)
        fig = figure_cdf(load_sweep(self.out).runs(), lists=("geode_removal_times",),
                         arms=["fixed"])
        self.assertIn("per-run means", fig._suptitle.get_text())

    def test_cdf_of_per_event_lists_has_no_such_title(self):
        fixtures.write_geode_sweep(self.out, with_lists=True)
        fig = figure_cdf(load_sweep(self.out).runs(), lists=("geode_removal_times",),
                         arms=["fixed"])
        self.assertIsNone(fig._suptitle)


if __name__ == "__main__":
    unittest.main()
