#include "sim/cli/input_files.h"

#include "sim/cli/cmd_sweep.h"
#include "sim/scenario/json_document.h"

namespace fdsim::cli {

bool looks_like_sweep(const nlohmann::json& doc) {
  return is_sweep_file(doc);
}

InputFile read_input_file(const std::string& path) {
  InputFile f;
  scenario::JsonDocument d = scenario::read_json_file(path);
  if (!d.ok()) {
    f.problems = std::move(d.errors);
    return f;
  }
  f.doc = std::move(*d.doc);
  f.is_sweep = looks_like_sweep(f.doc);
  return f;
}

}  // namespace fdsim::cli
