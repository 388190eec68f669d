import unittest

from fdsim_analysis import metric_names
from fdsim_analysis.paths import (MISSING, config_path_steps, flatten_metrics,
                                           get_config, get_metric)


class Paths(unittest.TestCase):
    def test_flatten_names_match_the_sweep_aggregate(self):
        # sim/sweep/aggregate.cpp: dotted keys, "[i]" for array elements, null kept as None,
        # booleans and strings dropped.
        flat = flatten_metrics({"a_s": {"mean": 1, "max": None}, "per_node": [{"x_count": 2}],
                                "ok": True, "name": "s"})
        self.assertEqual(flat, {"a_s.mean": 1.0, "a_s.max": None, "per_node[0].x_count": 2.0})

    def test_lookups_return_missing_not_none(self):
        doc = {"a": {"b": [None, {"c": 3}]}}
        self.assertIsNone(get_metric(doc, "a.b[0]"))
        self.assertEqual(get_metric(doc, "a.b[1].c"), 3)
        self.assertIs(get_metric(doc, "a.b[2].c"), MISSING)
        self.assertEqual(get_config(doc, "$.a.b[1].c"), 3)
        self.assertIs(get_config(doc, "$.a.x"), MISSING)

    def test_config_paths_follow_the_sweep_grammar(self):
        self.assertEqual(config_path_steps("$.load_sharing.arms[1].timeout_ms"),
                         ["load_sharing", "arms", 1, "timeout_ms"])
        for bad in ("load_sharing.arms", "$", "$.a[x]", "$.a..b"):
            with self.assertRaises(ValueError):
                config_path_steps(bad)


class MetricNames(unittest.TestCase):
    def test_units_come_from_suffixes(self):
        self.assertEqual(metric_names.unit_of("detection_removal_s.mean"), "s")
        self.assertEqual(metric_names.unit_of("mistake_rate_per_s"), "1/s")
        self.assertEqual(metric_names.unit_of("$.membership.member_timeout_ms"), "ms")
        self.assertEqual(metric_names.unit_of("dynamic_failure_ratio"), "")
        self.assertEqual(metric_names.label_of("mistake_rate"), "Mistake rate (1/s)")
        self.assertEqual(metric_names.label_of("mistake_rate_per_s"), "Mistake rate (1/s)")
        self.assertEqual(metric_names.label_of("foo_ms"), "foo_ms (ms)")

    def test_every_role_has_a_label_and_every_list_a_mean_path(self):
        self.assertEqual(set(metric_names.METRICS), set(metric_names.LABELS))
        for role, spec in metric_names.LISTS.items():
            self.assertIn(role, metric_names.LIST_LABELS)
            self.assertTrue(spec["list"] and spec["mean"])
        for role in metric_names.HEADLINE_ROLES:
            self.assertIn(role, metric_names.METRICS)


if __name__ == "__main__":
    unittest.main()
