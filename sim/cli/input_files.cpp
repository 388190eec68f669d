#include "sim/cli/input_files.h"

#include "sim/cli/cmd_sweep.h"
#include "sim/cli/script_input.h"
#include "sim/scenario/json_document.h"

namespace fdsim::cli {

bool looks_like_sweep(const nlohmann::json& doc) {
  return is_sweep_file(doc);
}

InputFile read_input_file(const std::string& path) {
  InputFile f;
  f.source = path == kStdinName ? kStdinSource : path;
  scenario::JsonDocument d;
  if (path == kStdinName) {
    std::string text, error;
    if (!read_stdin_text(&text, &error)) {
      f.problems.push_back(error);
      return f;
    }
    d = scenario::parse_json_text(text, kStdinSource);
    f.stdin_text = std::move(text);
  } else {
    d = scenario::read_json_file(path);
  }
  if (!d.ok()) {
    f.problems = std::move(d.errors);
    return f;
  }
  f.doc = std::move(*d.doc);
  f.is_sweep = looks_like_sweep(f.doc);
  return f;
}

}  // namespace fdsim::cli
