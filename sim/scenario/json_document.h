#pragma once
// Reading a JSON document (scenario or sweep file) from disk or from text, for user input.
//
// Contract: never throws. Every failure comes back as one readable line that starts with the
// source name: "x.json: line 3, column 5: syntax error ...", "x.json: the file is empty",
// "x.json: is a directory, not a file", "x.json: cannot read the file (Permission denied)".
// Besides syntax, the reader rejects what nlohmann::json would accept silently but a scenario
// author almost never means: duplicate keys in one object (each reported with its JSON path;
// nlohmann would keep the last one) and numbers too large for a double (1e400).
// It is the one JSON reader of fdsim: every input (scenario, sweep, base scenario, trace
// record, result file, sweep manifest) goes through it, under the limits of json_limits.h
// (nesting depth, file size, string length, array length), and only regular files are read
// (a FIFO would block, /dev/zero never ends). Memory is linear in the input and in the depth.
// On success `doc` holds the value; it is not necessarily an object (callers check).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/json_limits.h"

namespace fdsim::scenario {

struct JsonDocument {
  std::optional<nlohmann::json> doc;  // set iff errors is empty
  std::vector<std::string> errors;    // each already prefixed with the source name
  bool ok() const { return errors.empty(); }
};

// Parses `text`; `source` names it in messages (a path, or e.g. "<inline>").
JsonDocument parse_json_text(const std::string& text, const std::string& source);

// Reads and parses the file at `path` (messages are prefixed with `path` as given).
JsonDocument read_json_file(const std::string& path);

}  // namespace fdsim::scenario
