#pragma once
// Reading a file named on the command line: JSON syntax and file-level problems reported as
// "<path>: ..." lines, and whether it is a sweep file rather than a scenario.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::cli {

struct InputFile {
  nlohmann::json doc;
  std::vector<std::string> problems;  // file-level problems; doc is unusable if non-empty
  bool is_sweep = false;
  // The name for messages and the base of relative data files: the path as given, or
  // "<stdin>" for "-" (script_input.h).
  std::string source;
  std::string stdin_text;  // for "-", the text read (standard input cannot be read again)
};

// `path` "-" reads standard input (script_input.h).
InputFile read_input_file(const std::string& path);

// A sweep file rather than a scenario (cmd_sweep.h: an object with "base" or "axes").
bool looks_like_sweep(const nlohmann::json& doc);

}  // namespace fdsim::cli
