// Descriptions of the sweep-file fields (contract in sweep_field_docs.h). Edit the text here;
// docs/schema/sweep.schema.json is generated from it (scripts/update-format-tables.sh).
#include "sim/sweep/sweep_field_docs.h"

namespace fdsim::sweep {

// {table, key, unit, default_text, constraint, description}
const std::vector<scenario::FieldDoc>& sweep_field_docs() {
  static const std::vector<scenario::FieldDoc> docs = {
      {"sweep", "$.$schema", "", "", "",
       "the JSON Schema of sweeps (`fdsim schema sweep`, or `docs/schema/sweep.schema.json`), "
       "for editors; fdsim ignores it"},
      {"sweep", "$.name", "", "the sweep file's name without .json", "",
       "name of the sweep (summary, manifest)"},
      {"sweep", "$.description", "", "", "", "free text"},
      {"sweep", "$.replications", "", "each point's own \"replications\"", "",
       "replications of every point, overriding the base scenario's"},
      {"sweep", "$.base", "", "", "",
       "the base scenario: a file path relative to the sweep file, or the scenario itself"},
      {"sweep", "$.axes", "", "", "",
       "the dimensions of the grid, in order: the points are their cross product (a zip "
       "group is one dimension)"},
      {"sweep", "$.constraint", "", "", "",
       "a point is kept only if every condition holds"},
      {"sweep", "<axis>.path", "", "", "",
       "where the values go in the base scenario: \"$.a.b[2].c\" (docs/sweeps.md); it must "
       "exist there and not overlap another axis"},
      {"sweep", "<axis>.name", "", "none: labelled by its path", "identifier, unique",
       "a short name of the axis for exports, tables and figure legends (fdsim export "
       "columns, fdsim-analysis --where/--facet/--x); letters, digits and '_', at most 64 "
       "characters, not a fixed export column; it does not change the runs"},
      {"sweep", "<axis>.values", "", "", "",
       "the values of the axis: a non-empty list, a range or a geometric range"},
      {"sweep", "<axis>.calibrate", "", "", "",
       "instead of values: the axis's one value per point is solved so that an arm's mean "
       "metric hits a target (docs/sweeps.md, Calibrated axes); not in a zip"},
      {"sweep", "<calibration>.arm", "", "the results' only arm", "",
       "the arm whose metric is calibrated"},
      {"sweep", "<calibration>.metric", "", "", "",
       "the metric, by its aggregate.csv name (\"traffic.messages_per_node_s\")"},
      {"sweep", "<calibration>.target", "", "", "",
       "a number (not 0), or {\"arm\": name}: the mean of the same metric on that arm of the "
       "same pilot runs"},
      {"sweep", "<calibration>.tolerance_rel", "", "", "",
       "solved when |pilot mean - target| <= tolerance_rel x |target|"},
      {"sweep", "<calibration>.bracket", "", "", "lo < hi",
       "[lo, hi]: the values searched; the target must lie between the pilot means at lo and "
       "hi, and the metric must be monotone between them"},
      {"sweep", "<calibration>.pilot_replications", "", "", "",
       "replications per evaluation, run as replications 2^40 + k (their own random streams)"},
      {"sweep", "<calibration>.max_iterations", "", "", "",
       "evaluations after the two bracket ends before the calibration gives up (exit 2)"},
      {"sweep", "<calibration>.linked", "", "", "",
       "leaves that follow the calibrated value x: each is set to scale x + offset wherever x "
       "is set (a timeout kept at the period plus a round trip)"},
      {"sweep", "<linked_leaf>.path", "", "", "", "the leaf (\"$.a.b[2].c\"); it must exist "
       "in the base scenario's parent and not overlap an axis"},
      {"sweep", "<linked_leaf>.scale", "", "", "", "factor of the calibrated value"},
      {"sweep", "<linked_leaf>.offset", "", "", "", "added after scaling"},
      {"sweep", "<zip>.zip", "", "", "",
       "axes varied together: the i-th point takes the i-th value of each (same number of "
       "values each)"},
      {"sweep", "<range>.from", "", "", "<= to", "first value"},
      {"sweep", "<range>.to", "", "", "", "last value, included within a relative rounding "
       "tolerance of 1e-9"},
      {"sweep", "<range>.step", "", "", "", "difference between successive values"},
      {"sweep", "<geometric_range>.from", "", "", "<= to", "first value"},
      {"sweep", "<geometric_range>.to", "", "", "", "last value, included within a relative "
       "rounding tolerance of 1e-9"},
      {"sweep", "<geometric_range>.factor", "", "", "", "ratio between successive values"},
      {"sweep", "<condition>.path", "", "", "", "the value compared, in the point's scenario "
       "(\"$.a.b\")"},
      {"sweep", "<condition>.op", "", "", "", "the comparison path <op> value (or the value at other_path); "
       "the orderings need two numbers or two strings"},
      {"sweep", "<condition>.value", "", "", "", "a constant to compare with (give this or "
       "other_path)"},
      {"sweep", "<condition>.other_path", "", "", "", "another place of the point's scenario "
       "to compare with (give this or value)"},
  };
  return docs;
}

const scenario::FieldDoc* find_sweep_field_doc(std::string_view key) {
  for (const auto& d : sweep_field_docs())
    if (d.path == key) return &d;
  return nullptr;
}

}  // namespace fdsim::sweep
