#include "sim/scenario/data_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/engine/hash.h"
#include "sim/scenario/reader.h"

namespace fdsim::scenario {

namespace {

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Closes the descriptor on every path out of read_data_file.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::optional<DataFile> read_data_file(const std::string& path, std::string_view what,
                                       std::string& error, std::uintmax_t max_bytes) {
  error.clear();
  const std::string kind(what);
  Fd f;
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of blocking.
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f.fd < 0) {
    error = path + ": cannot open the " + kind;
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    error = path + ": cannot read the " + kind;
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    error = path + ": is a directory, not a file";
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = path + ": is not a regular file";
    return std::nullopt;
  }
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
    error = path + ": larger than the limit of " + std::to_string(max_bytes) + " bytes for a " +
            kind;
    return std::nullopt;
  }
  DataFile out;
  out.bytes.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      error = path + ": read error";
      return std::nullopt;
    }
    if (n == 0) break;
    // The file may grow while it is read: the limit holds for what is read, not what fstat saw.
    if (out.bytes.size() + static_cast<size_t>(n) > max_bytes) {
      error = path + ": larger than the limit of " + std::to_string(max_bytes) + " bytes for a " +
              kind;
      return std::nullopt;
    }
    out.bytes.append(buf, static_cast<size_t>(n));
  }
  out.digest = "fnv1a64:" + hex16(fnv1a64(out.bytes));
  return out;
}

std::optional<std::vector<double>> parse_numbers(const std::string& path, const DataFile& file,
                                                 const NumberFormat& format, std::string& error) {
  error.clear();
  std::vector<double> out;
  const std::string_view text = file.bytes;
  size_t line_no = 0;
  size_t pos = 0;
  auto separator = [&](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
           (format.commas && c == ',');
  };
  while (pos < text.size()) {
    ++line_no;
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    size_t tokens_on_line = 0;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && separator(line[i])) ++i;
      if (i >= line.size()) break;
      size_t j = i;
      while (j < line.size() && !separator(line[j])) ++j;
      // A copy makes the token NUL-terminated for strtod; an embedded NUL stops strtod short of
      // the token's end, which the end check below refuses.
      const std::string token(line.substr(i, j - i));
      i = j;
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(token.c_str(), &end);
      const bool whole = end == token.c_str() + token.size() && end != token.c_str();
      // Overflow gives an infinity (refused); underflow gives a tiny number or 0 (kept).
      if (!whole || !std::isfinite(v) || v < format.min || v > format.max ||
          (format.one_per_line && ++tokens_on_line > 1)) {
        error = path + ":" + std::to_string(line_no) + ": " + format.expectation;
        return std::nullopt;
      }
      out.push_back(v);
    }
  }
  if (out.empty()) {
    error = path + ": " + format.empty_message;
    return std::nullopt;
  }
  return out;
}

void record_data_digest(ObjectReader& r, std::string_view key, const std::string& digest) {
  const std::string digest_key = std::string(key) + "_digest";
  FieldSpec spec;
  spec.type = FieldSpec::Type::string;
  r.declare(digest_key, spec);
  if (const json* given = r.raw(digest_key)) {
    r.consume(digest_key);
    if (!given->is_string()) {
      r.error(digest_key, "expected a string (a digest \"fnv1a64:<16 hex digits>\"), got " +
                              describe(*given));
    } else if (given->get<std::string>() != digest) {
      r.error(digest_key, "the file's content changed: its digest is now " + digest +
                              ", the scenario records " + one_line(given->get<std::string>()) +
                              " (remove " + digest_key + " to accept the new content)");
    }
  }
  r.set_resolved(digest_key, digest);
}

}  // namespace fdsim::scenario
