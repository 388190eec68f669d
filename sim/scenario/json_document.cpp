#include "sim/scenario/json_document.h"

#include "sim/scenario/reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace fdsim::scenario {

using nlohmann::json;

namespace {

// Builds the DOM like nlohmann's own SAX DOM parser, but records duplicate keys (with their
// JSON path) instead of silently keeping the last value, and stops at the first limit of
// json_limits.h that the input breaks. The path of the open containers is kept as one entry
// per level (a key or an index), so memory stays linear in the depth; the "$.a[3].b" text is
// built only for a message.
class DomBuilder {
 public:
  std::vector<std::string> duplicates;  // "$.path: duplicate key ..."
  std::size_t error_position = 0;
  std::string error_message;
  std::string limit_message;  // set when a limit stopped the parse ("$.a: ...")
  bool failed = false;
  json root;

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
  bool string(json::string_t& v) {
    if (v.size() > kMaxJsonStringBytes) {
      return limit(path_text(true) + ": a string longer than the limit of " +
                   std::to_string(kMaxJsonStringBytes) + " bytes");
    }
    return put(json(std::move(v)));
  }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    if (k.size() > kMaxJsonStringBytes) {
      return limit(path_text(false) + ": a key longer than the limit of " +
                   std::to_string(kMaxJsonStringBytes) + " bytes");
    }
    json* obj = stack_.back();
    pending_key_ = k;
    if (obj->contains(k)) {
      duplicates.push_back(path_text(true) +
                           ": duplicate key (each key may appear only once in an object)");
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    failed = true;
    error_position = position;
    error_message = ex.what();
    return false;
  }

 private:
  // One level of the path: the key or index under which the container at that level sits.
  struct Step {
    bool is_index = false;
    std::size_t index = 0;
    std::string key;
  };

  bool limit(std::string message) {
    limit_message = std::move(message);
    return false;
  }
  // The path of the open containers; with_next adds the slot the next value goes into.
  std::string path_text(bool with_next) const {
    std::string out = "$";
    for (const auto& st : steps_) append(out, st);
    if (with_next && !stack_.empty()) append(out, next_step());
    return out;
  }
  static void append(std::string& out, const Step& st) {
    if (st.is_index) {
      out += "[" + std::to_string(st.index) + "]";
    } else {
      out += "." + st.key;
    }
  }
  Step next_step() const {
    const json* parent = stack_.back();
    if (parent->is_array()) return Step{true, parent->size(), {}};
    return Step{false, 0, pending_key_};
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
  bool room_for_one_more() {
    if (!stack_.empty() && stack_.back()->size() >= kMaxJsonArrayElements) {
      return limit(path_text(false) + ": more than the limit of " +
                   std::to_string(kMaxJsonArrayElements) + " elements");
    }
    return true;
  }
  bool put(json v) {
    if (!room_for_one_more()) return false;
    place(std::move(v));
    return true;
  }
  bool open(json v) {
    if (stack_.size() >= kMaxJsonDepth) {
      return limit(path_text(false) + ": nested deeper than the limit of " +
                   std::to_string(kMaxJsonDepth) + " levels of arrays and objects");
    }
    if (!room_for_one_more()) return false;
    if (!stack_.empty()) steps_.push_back(next_step());
    json* p = place(std::move(v));
    stack_.push_back(p);
    return true;
  }
  bool close() {
    stack_.pop_back();
    if (!steps_.empty()) steps_.pop_back();
    return true;
  }

  std::vector<json*> stack_;
  std::vector<Step> steps_;  // steps_.size() == max(0, stack_.size() - 1)
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

JsonDocument parse_json_text(const std::string& text, const std::string& source_name) {
  // The source (a path) may hold any byte; every message stays one line.
  const std::string source = one_line(source_name);
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
  if (!builder.limit_message.empty()) {
    out.errors.push_back(source + ": " + one_line(builder.limit_message));
    return out;
  }
  if (!parsed || builder.failed) {
    out.errors.push_back(source + ": " +
                         format_error(builder.error_message, builder.error_position, text));
    return out;
  }
  for (const auto& d : builder.duplicates) out.errors.push_back(source + ": " + one_line(d));
  if (out.errors.empty()) out.doc = std::move(builder.root);
  return out;
}

JsonDocument read_json_file(const std::string& path) {
  JsonDocument out;
  const std::string shown = one_line(path);  // a file name may hold a newline
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    out.errors.push_back(shown + ": cannot read the file (" + std::strerror(errno) + ")");
    return out;
  }
  if (S_ISDIR(st.st_mode)) {
    out.errors.push_back(shown + ": is a directory, not a file");
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.errors.push_back(shown + ": is not a regular file (a FIFO, device or socket is not read)");
    return out;
  }
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxJsonFileBytes) {
    out.errors.push_back(shown + ": larger than the limit of " + std::to_string(kMaxJsonFileBytes) +
                         " bytes for a JSON file");
    return out;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    out.errors.push_back(shown + ": cannot read the file (" +
                         (err != 0 ? std::strerror(err) : "open failed") + ")");
    return out;
  }
  // Read in chunks and stop one chunk past the limit: a file that grows while it is read is
  // still bounded.
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxJsonFileBytes) {
      out.errors.push_back(shown + ": larger than the limit of " +
                           std::to_string(kMaxJsonFileBytes) + " bytes for a JSON file");
      return out;
    }
  }
  if (in.bad()) {
    out.errors.push_back(shown + ": cannot read the file (read error)");
    return out;
  }
  return parse_json_text(text, path);
}

}  // namespace fdsim::scenario
