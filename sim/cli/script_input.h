#pragma once
// What scripts need from the command line: a scenario on standard input ("-"), overrides
// `--set PATH=VALUE`, and results on standard output (`--stdout`, `--out -`).
//
// Contract:
// - kStdinName ("-") as a file argument means standard input; its messages and its source name
//   are kStdinSource ("<stdin>"), and its relative data files are taken from the working
//   directory. Standard input is read once, under the JSON limits (json_limits.h: at most
//   kMaxJsonFileBytes), so "-" may appear at most once per command.
// - An override is "PATH=VALUE": PATH in the sweep's path syntax (sim/sweep/json_path.h:
//   $.a.b[2].c), split at the first '=' (paths never contain one); VALUE a JSON value (a number,
//   true, null, {"a": 1}, or a quoted string "\"x\""). Overrides apply in the order given, each
//   exactly as a sweep axis writes its value (JsonPath::set: the parent must exist, the last
//   key may be absent). Problems come back as one line each, "--set <arg>: <why>".

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/json_path.h"

namespace fdsim::cli {

inline constexpr const char* kStdinName = "-";
inline constexpr const char* kStdinSource = "<stdin>";

// The --help text of --set (run, validate, explain).
inline constexpr const char* kSetOptionHelp =
    "Override one field before validation: PATH=VALUE, PATH as in sweep axes "
    "($.network.loss), VALUE JSON (600, true, {\"a\": 1}; a string quoted: '$.name=\"x\"'); "
    "repeatable, applied in order";

// Reads all of standard input as text; on failure returns false with *error set (the line to
// print: "<stdin>: ...").
bool read_stdin_text(std::string* text, std::string* error);

struct Override {
  std::string arg;  // as given, for messages
  sweep::JsonPath path;
  nlohmann::json value;
};

// Parses every --set argument; problems get one line each.
std::vector<Override> parse_overrides(const std::vector<std::string>& args,
                                      std::vector<std::string>* problems);

// Writes the overrides into `doc` (a scenario document); `source` names it in messages.
// Returns the problems (empty on success); `doc` is then unusable.
std::vector<std::string> apply_overrides(const std::vector<Override>& overrides,
                                         nlohmann::json& doc, const std::string& source);

// The message for more than one "-" among `files`, or empty.
std::string stdin_used_twice(const std::vector<std::string>& files);

}  // namespace fdsim::cli
