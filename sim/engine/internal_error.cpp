#include "sim/engine/internal_error.h"

#include <cstdarg>
#include <cstdio>
#include <string_view>

namespace fdsim {

void internal_error(const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  std::string_view text(buf);
  constexpr std::string_view kPrefix = "fdsim: internal error: ";
  constexpr std::string_view kShortPrefix = "fdsim: internal error ";  // "... error at t = ..."
  if (text.substr(0, kPrefix.size()) == kPrefix) text.remove_prefix(kPrefix.size());
  else if (text.substr(0, kShortPrefix.size()) == kShortPrefix) text.remove_prefix(kShortPrefix.size());
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  throw InternalError(std::string(text));
}

}  // namespace fdsim
