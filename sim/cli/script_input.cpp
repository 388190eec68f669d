#include "sim/cli/script_input.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <string_view>

#include "sim/scenario/json_document.h"
#include "sim/scenario/json_limits.h"

namespace fdsim::cli {

namespace {

// "<stdin>: " followed by the parts, built by appending to one string. Not as
// std::string(kStdinSource) + "..." + ...: GCC 12 at -O2 inlines the move out of that
// temporary and reports a memcpy past its 32-byte small-string buffer (-Warray-bounds, a false
// positive: GCC bugs 105329/105651), and appending creates no such temporary.
std::string stdin_message(std::initializer_list<std::string_view> parts) {
  std::string out(kStdinSource);
  out += ": ";
  for (const std::string_view part : parts) out += part;
  return out;
}

}  // namespace

bool read_stdin_text(std::string* text, std::string* error) {
  text->clear();
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = stdin_message({"cannot read standard input (", std::strerror(errno), ")"});
      return false;
    }
    // Bounded like a file (json_limits.h): a never-ending pipe is refused, not buffered.
    if (text->size() + size_t(n) > scenario::kMaxJsonFileBytes) {
      *error = stdin_message({"larger than the limit of ",
                              std::to_string(scenario::kMaxJsonFileBytes), " bytes"});
      return false;
    }
    text->append(buf, size_t(n));
  }
  return true;
}

std::vector<Override> parse_overrides(const std::vector<std::string>& args,
                                      std::vector<std::string>* problems) {
  std::vector<Override> out;
  for (const auto& arg : args) {
    const std::string where = "--set " + arg + ": ";
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      problems->push_back(where + "expected PATH=VALUE, e.g. --set '$.horizon_s=600'");
      continue;
    }
    std::string error;
    auto path = sweep::JsonPath::parse(arg.substr(0, eq), &error);
    if (!path) {
      problems->push_back(where + error);
      continue;
    }
    const std::string value_text = arg.substr(eq + 1);
    scenario::JsonDocument value = scenario::parse_json_text(value_text, "value");
    if (!value.ok()) {
      // The usual slip: a bare word where a JSON string (quoted) is meant.
      problems->push_back(where + "the value is not JSON (" + value.errors.front() +
                          "); a string needs JSON quotes: --set '" + path->text() + "=\"" +
                          value_text + "\"'");
      continue;
    }
    out.push_back({arg, std::move(*path), std::move(*value.doc)});
  }
  return out;
}

std::vector<std::string> apply_overrides(const std::vector<Override>& overrides,
                                         nlohmann::json& doc, const std::string& source) {
  std::vector<std::string> problems;
  for (const auto& o : overrides) {
    const std::string why = o.path.settable(doc, "the scenario");
    if (!why.empty()) {
      problems.push_back(source + ": --set " + o.arg + ": " + why);
      continue;
    }
    o.path.set(doc, o.value);
  }
  return problems;
}

std::string stdin_used_twice(const std::vector<std::string>& files) {
  int n = 0;
  for (const auto& f : files) n += f == kStdinName;
  return n > 1 ? std::string("-: standard input can be read only once; name it once") : "";
}

}  // namespace fdsim::cli
