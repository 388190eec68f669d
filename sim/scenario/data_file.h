#pragma once
// The one guarded reader for data files a scenario names (delay samples, execution times, and
// every later trace or sample file): use it for any file whose path comes from input.
//
// Contract of read_data_file():
// - Only a regular file is read. The file is opened non-blocking and checked with fstat on the
//   open descriptor, so a FIFO (which would block forever), a device (/dev/zero never ends),
//   a socket or a directory is refused without reading a byte.
// - At most `max_bytes` are read; a larger file is refused (no unbounded memory).
// - Never throws. On a problem it returns nullopt and sets `error` to one line
//   "<path>: <what went wrong>" that never echoes the file's contents: a relative path may
//   name any file (an environment or password file), and its contents are not ours to print.
// - On success it returns the bytes and their digest ("fnv1a64:<16 hex digits>" of the bytes),
//   which the caller writes into the resolved scenario next to the path (key "<key>_digest",
//   e.g. "file_digest") so that the run identity, the manifest, resume and merge all change
//   when the file's content does.
//
// Contract of parse_numbers(): the text is split into lines; '#' starts a comment to the end
// of the line; tokens are separated by spaces, tabs, '\r' (and ',' if `commas`). Every token
// must be one whole finite number (strtod, the C locale's '.') within [min, max]; a NUL byte
// or any other stray character makes the token invalid. With `one_per_line` a line holding two
// tokens is a problem. The first problem gives "<path>:<line>: <expectation>" (the token is not
// echoed) and nullopt; no number at all gives "<path>: <empty_message>".
//
// Porting another reader: read_data_file(path, ...) -> parse its bytes (parse_numbers for
// number lists, or a line parser of its own that follows the same never-echo rule) -> put
// `digest` into the resolved config with set_resolved("<key>_digest", digest).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fdsim::scenario {

class ObjectReader;

// The default size limit of a data file (64 MiB, about 8 million numbers).
inline constexpr std::uintmax_t kMaxDataFileBytes = 64u << 20;

struct DataFile {
  std::string bytes;   // the whole content
  std::string digest;  // "fnv1a64:0123456789abcdef"
};

// `what` names the kind of file in messages ("delay samples file").
std::optional<DataFile> read_data_file(const std::string& path, std::string_view what,
                                       std::string& error,
                                       std::uintmax_t max_bytes = kMaxDataFileBytes);

struct NumberFormat {
  double min = 0.0;
  double max = 1e300;
  bool one_per_line = true;
  bool commas = false;
  std::string expectation;    // "expected one finite delay in ms >= 0 per line"
  std::string empty_message;  // "no delay samples in the file"
};

std::optional<std::vector<double>> parse_numbers(const std::string& path, const DataFile& file,
                                                 const NumberFormat& format, std::string& error);

// Records a data file's digest on the object that names it: writes "<key>_digest": digest into
// the resolved scenario (so the run identity follows the content) and reads an optional
// "<key>_digest" string the input may carry (as `fdsim explain` prints it). A given digest that
// differs from the file's is a problem: the file changed since the scenario was resolved
// ("... remove <key>_digest to accept the new content").
void record_data_digest(ObjectReader& r, std::string_view key, const std::string& digest);

}  // namespace fdsim::scenario
