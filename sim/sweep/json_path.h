#pragma once
// JSON paths that name one field of a scenario: "$.network.loss_probability",
// "$.load_sharing.arms[1].timeout_ms".
//
// Grammar: "$" followed by one or more steps, each ".key" (key made of letters, digits, '_'
// and '-') or "[index]" (a non-negative decimal integer). No wildcards, no quoting: a path
// always names exactly one place.
//
// Contract: parse() accepts exactly that grammar and explains what it did not accept;
// settable() says whether set() can write the path into a document: every step but the last
// must exist (the parent object or array must be there), an index must be inside its array,
// and a missing last key is fine (an optional field whose default the scenario did not write).
// find()/set() never throw.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::sweep {

class JsonPath {
 public:
  struct Step {
    bool is_index = false;
    std::string key;   // when !is_index
    size_t index = 0;  // when is_index
  };

  // Parses `text`; on failure returns nullopt and sets *error to a message naming the problem.
  static std::optional<JsonPath> parse(std::string_view text, std::string* error);

  const std::string& text() const { return text_; }
  const std::vector<Step>& steps() const { return steps_; }

  // The value at this path, or nullptr if any step is missing.
  const nlohmann::json* find(const nlohmann::json& doc) const;
  // Empty if set() can write this path into `doc`, else why not, e.g.
  // "$.load_sharing.arms[5] does not exist in the base scenario ($.load_sharing.arms has 2
  // elements)". `what` names the document in messages ("the base scenario").
  std::string settable(const nlohmann::json& doc, std::string_view what) const;
  // Writes `value` at this path; requires settable(doc) to be empty (else returns false).
  bool set(nlohmann::json& doc, nlohmann::json value) const;

  // True if this path equals `other` or is an ancestor of it ($.a is a prefix of $.a.b, $.a[0]).
  bool is_prefix_of(const JsonPath& other) const;

 private:
  std::string text_;
  std::vector<Step> steps_;
};

}  // namespace fdsim::sweep
