#include "sim/scenario/json_document.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fdsim::scenario {

using nlohmann::json;

namespace {

// Builds the DOM like nlohmann's own SAX DOM parser, but records duplicate keys (with their
// JSON path) instead of silently keeping the last value.
class DomBuilder {
 public:
  std::vector<std::string> duplicates;  // "$.path: duplicate key ..."
  std::size_t error_position = 0;
  std::string error_message;
  bool failed = false;
  json root;

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
  bool string(json::string_t& v) { return put(json(std::move(v))); }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    json* obj = stack_.back();
    if (obj->contains(k)) {
      duplicates.push_back(paths_.back() + "." + k +
                           ": duplicate key (each key may appear only once in an object)");
    }
    pending_key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    failed = true;
    error_position = position;
    error_message = ex.what();
    return false;
  }

 private:
  std::string next_path() const {
    if (stack_.empty()) return "$";
    const json* parent = stack_.back();
    if (parent->is_array()) return paths_.back() + "[" + std::to_string(parent->size()) + "]";
    return paths_.back() + "." + pending_key_;
  }
  json* place(json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json* parent = stack_.back();
    if (parent->is_array()) {
      parent->push_back(std::move(v));
      return &parent->back();
    }
    json& slot = (*parent)[pending_key_];
    slot = std::move(v);
    return &slot;
  }
  bool put(json v) {
    place(std::move(v));
    return true;
  }
  bool open(json v) {
    std::string path = next_path();
    json* p = place(std::move(v));
    stack_.push_back(p);
    paths_.push_back(std::move(path));
    return true;
  }
  bool close() {
    stack_.pop_back();
    paths_.pop_back();
    return true;
  }

  std::vector<json*> stack_;
  std::vector<std::string> paths_;
  std::string pending_key_;
};

// "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." ->
// "line 3, column 5: syntax error ...". Messages without a position get one computed from
// the byte offset.
std::string format_error(const std::string& what, std::size_t position, const std::string& text) {
  std::string msg = what;
  if (msg.rfind("[json.exception.", 0) == 0) {
    const auto close = msg.find("] ");
    if (close != std::string::npos) msg = msg.substr(close + 2);
  }
  const std::string at = "parse error at ";
  if (msg.rfind(at, 0) == 0) return msg.substr(at.size());
  if (msg.rfind("parse error: ", 0) == 0) msg = msg.substr(13);
  // Position = characters read so far (1-based index of the offending character).
  std::size_t line = 1, column = 0;
  const std::size_t end = std::min(position, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 0;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + msg;
}

bool blank(const std::string& text) {
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

}  // namespace

JsonDocument parse_json_text(const std::string& text, const std::string& source) {
  JsonDocument out;
  if (blank(text)) {
    out.errors.push_back(source + ": the file is empty (expected a JSON object)");
    return out;
  }
  DomBuilder builder;
  bool parsed = false;
  try {
    parsed = json::sax_parse(text, &builder);
  } catch (const nlohmann::json::exception& e) {
    // Not expected (errors go through parse_error), but never let one escape.
    builder.failed = true;
    builder.error_message = e.what();
  }
  if (!parsed || builder.failed) {
    out.errors.push_back(source + ": " +
                         format_error(builder.error_message, builder.error_position, text));
    return out;
  }
  for (const auto& d : builder.duplicates) out.errors.push_back(source + ": " + d);
  if (out.errors.empty()) out.doc = std::move(builder.root);
  return out;
}

JsonDocument read_json_file(const std::string& path) {
  JsonDocument out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    out.errors.push_back(path + ": cannot read the file (" + std::strerror(errno) + ")");
    return out;
  }
  if (S_ISDIR(st.st_mode)) {
    out.errors.push_back(path + ": is a directory, not a file");
    return out;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    out.errors.push_back(path + ": cannot read the file (" +
                         (err != 0 ? std::strerror(err) : "open failed") + ")");
    return out;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    out.errors.push_back(path + ": cannot read the file (read error)");
    return out;
  }
  return parse_json_text(ss.str(), path);
}

}  // namespace fdsim::scenario
