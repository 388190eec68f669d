#include "sim/sweep/json_path.h"

namespace fdsim::sweep {

using nlohmann::json;

namespace {

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

std::string prefix_text(const std::vector<JsonPath::Step>& steps, size_t count) {
  std::string s = "$";
  for (size_t i = 0; i < count; ++i) {
    if (steps[i].is_index)
      s += "[" + std::to_string(steps[i].index) + "]";
    else
      s += "." + steps[i].key;
  }
  return s;
}

const char* type_name(const json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_null()) return "null";
  return "a number";
}

}  // namespace

std::optional<JsonPath> JsonPath::parse(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<JsonPath> {
    if (error) {
      *error = "expected a JSON path like \"$.network.loss_probability\" or "
               "\"$.load_sharing.arms[1].timeout_ms\", got \"" +
               std::string(text) + "\" (" + why + ")";
    }
    return std::nullopt;
  };
  if (text.empty() || text[0] != '$') return fail("it must start with '$'");
  JsonPath p;
  p.text_ = std::string(text);
  size_t i = 1;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '.') {
      size_t j = i + 1;
      while (j < text.size() && is_key_char(text[j])) ++j;
      if (j == i + 1) return fail("empty or invalid key at character " + std::to_string(i + 1));
      Step s;
      s.key = std::string(text.substr(i + 1, j - i - 1));
      p.steps_.push_back(std::move(s));
      i = j;
    } else if (c == '[') {
      size_t j = i + 1;
      size_t index = 0;
      while (j < text.size() && text[j] >= '0' && text[j] <= '9') {
        if (index > 100000000) return fail("index too large");
        index = index * 10 + size_t(text[j] - '0');
        ++j;
      }
      if (j == i + 1 || j >= text.size() || text[j] != ']')
        return fail("expected a non-negative integer index in [] at character " +
                    std::to_string(i + 1));
      Step s;
      s.is_index = true;
      s.index = index;
      p.steps_.push_back(std::move(s));
      i = j + 1;
    } else {
      return fail("unexpected '" + std::string(1, c) + "' at character " + std::to_string(i + 1));
    }
  }
  if (p.steps_.empty()) return fail("it must name a field, not the whole document");
  return p;
}

const json* JsonPath::find(const json& doc) const {
  const json* cur = &doc;
  for (const Step& s : steps_) {
    if (s.is_index) {
      if (!cur->is_array() || s.index >= cur->size()) return nullptr;
      cur = &(*cur)[s.index];
    } else {
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(s.key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    }
  }
  return cur;
}

std::string JsonPath::settable(const json& doc, std::string_view what) const {
  const json* cur = &doc;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& s = steps_[i];
    const bool last = i + 1 == steps_.size();
    if (s.is_index) {
      if (!cur->is_array()) {
        return prefix_text(steps_, i) + " is " + type_name(*cur) + ", not an array, in " +
               std::string(what);
      }
      if (s.index >= cur->size()) {
        return prefix_text(steps_, i + 1) + " does not exist in " + std::string(what) + " (" +
               prefix_text(steps_, i) + " has " + std::to_string(cur->size()) +
               (cur->size() == 1 ? " element)" : " elements)");
      }
      cur = &(*cur)[s.index];
    } else {
      if (!cur->is_object()) {
        return prefix_text(steps_, i) + " is " + type_name(*cur) + ", not an object, in " +
               std::string(what);
      }
      auto it = cur->find(s.key);
      if (it == cur->end()) {
        if (last) return {};  // an optional field left to its default: the parent is there
        return prefix_text(steps_, i + 1) + " does not exist in " + std::string(what);
      }
      cur = &*it;
    }
  }
  return {};
}

bool JsonPath::set(json& doc, json value) const {
  if (!settable(doc, "the document").empty()) return false;
  json* cur = &doc;
  for (size_t i = 0; i + 1 < steps_.size(); ++i) {
    const Step& s = steps_[i];
    cur = s.is_index ? &(*cur)[s.index] : &(*cur)[s.key];
  }
  const Step& last = steps_.back();
  if (last.is_index)
    (*cur)[last.index] = std::move(value);
  else
    (*cur)[last.key] = std::move(value);
  return true;
}

bool JsonPath::is_prefix_of(const JsonPath& other) const {
  if (steps_.size() > other.steps_.size()) return false;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& a = steps_[i];
    const Step& b = other.steps_[i];
    if (a.is_index != b.is_index) return false;
    if (a.is_index ? a.index != b.index : a.key != b.key) return false;
  }
  return true;
}

}  // namespace fdsim::sweep
