#include "sim/net/delay_trace.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/net/delay_samples.h"

namespace fdsim::net {

namespace {

constexpr double kMaxTraceMs = 1e11;  // the latency models' draw cap (about three years)

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fdsim: internal error: delay trace: %s\n", what);
  std::abort();
}

template <class R>
Duration draw_row(const std::vector<double>& sorted_ms, R& rng) {
  const auto i = size_t(rng.uniform_int(0, int64_t(sorted_ms.size()) - 1));
  return Duration::from_ms(sorted_ms[i]);
}

// Parses one finite number >= 0 spanning all of `s`.
bool number(const std::string& s, double& v) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0' && errno != ERANGE && std::isfinite(v) && v >= 0 &&
         v <= kMaxTraceMs;
}

}  // namespace

TraceLatency::TraceLatency(std::vector<TraceRow> rows, int64_t loop_ns, bool shared)
    : rows_(std::move(rows)), shared_(shared) {
  if (rows_.size() < 2) fail("fewer than two rows");
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].offset_ns < 0 || (i > 0 && rows_[i].offset_ns <= rows_[i - 1].offset_ns))
      fail("offsets not strictly increasing from >= 0");
    if (rows_[i].delay_ns != kLostRow) {
      if (rows_[i].delay_ns < 0) fail("negative delay");
      sorted_ms_.push_back(double(rows_[i].delay_ns) * 1e-6);
    }
  }
  if (sorted_ms_.empty()) fail("no delivered row");
  const int64_t first = rows_.front().offset_ns, last = rows_.back().offset_ns;
  loop_ns_ = loop_ns > 0 ? loop_ns : last + (last - first) / int64_t(rows_.size() - 1);
  if (loop_ns_ <= last) fail("loop not after the last offset");
  std::sort(sorted_ms_.begin(), sorted_ms_.end());
  double sum = 0;
  for (double v : sorted_ms_) sum += v;
  mean_ms_ = sum / double(sorted_ms_.size());
  // Fallback delays of lost rows: the latest delivered row before, cyclically.
  fallback_ns_.assign(rows_.size(), kLostRow);
  int64_t prev = kLostRow;
  for (size_t pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (rows_[i].delay_ns != kLostRow) prev = rows_[i].delay_ns;
      if (fallback_ns_[i] == kLostRow) fallback_ns_[i] = rows_[i].delay_ns != kLostRow ? rows_[i].delay_ns : prev;
    }
}

Duration TraceLatency::draw(Rng& rng) const { return draw_row(sorted_ms_, rng); }
Duration TraceLatency::draw(CompactRng& rng) const { return draw_row(sorted_ms_, rng); }

double TraceLatency::quantile_ms(double p) const {
  if (!(p > 0 && p < 1)) fail("quantile outside (0, 1)");
  // Smallest delay x with F_n(x) >= p, as the empirical model.
  const size_t n = sorted_ms_.size();
  size_t k = size_t(std::ceil(p * double(n)));
  if (k < 1) k = 1;
  if (k > n) k = n;
  return sorted_ms_[k - 1];
}

int64_t TraceLatency::offset_ns(NodeId src, NodeId dst, size_t nodes) const {
  if (shared_) return 0;
  const double x = (double(src) * double(nodes) + double(dst) + 1.0) * 0.6180339887498949;
  const double frac = x - std::floor(x);
  const auto off = int64_t(std::floor(frac * double(loop_ns_)));
  return std::clamp<int64_t>(off, 0, loop_ns_ - 1);
}

size_t TraceLatency::row_at(NodeId src, NodeId dst, size_t nodes, SimTime t) const {
  const int64_t pos = (t.count_ns() % loop_ns_ + offset_ns(src, dst, nodes)) % loop_ns_;
  auto it = std::upper_bound(rows_.begin(), rows_.end(), pos,
                             [](int64_t v, const TraceRow& r) { return v < r.offset_ns; });
  if (it == rows_.begin()) return rows_.size() - 1;  // still the last row of the previous loop
  return size_t(it - rows_.begin()) - 1;
}

std::vector<TraceRow> load_delay_trace_rows(const std::string& path, std::string& error,
                                           std::string* digest) {
  std::vector<TraceRow> rows;
  size_t delivered = 0;
  const bool ok = for_each_data_line(
      path, "delay trace file", error, [&](size_t line_no, const std::string& text) {
        const std::string where = path + ":" + std::to_string(line_no) + ": ";
        // Split into exactly two fields on blanks or one comma.
        std::string a, b;
        const auto sep = text.find_first_of(" \t,");
        if (sep != std::string::npos) {
          a = text.substr(0, sep);
          const auto rest = text.find_first_not_of(" \t,", sep);
          if (rest != std::string::npos) b = text.substr(rest);
          const std::string gap = text.substr(sep, rest == std::string::npos ? std::string::npos : rest - sep);
          if (std::count(gap.begin(), gap.end(), ',') > 1) b.clear();
        }
        double off = 0, d = 0;
        const bool lost = b == "lost";
        if (!number(a, off) || (!lost && !number(b, d))) {
          error = where +
                  "expected \"offset_ms delay_ms\" or \"offset_ms lost\" (finite numbers >= 0 "
                  "and <= 1e11, separated by blanks or a comma)";
          return false;
        }
        const int64_t off_ns = Duration::from_ms(off).count_ns();
        if (!rows.empty() && off_ns <= rows.back().offset_ns) {
          error = where + "offsets must be strictly increasing (this row's offset is not after "
                          "the previous row's)";
          return false;
        }
        rows.push_back({off_ns, lost ? kLostRow : Duration::from_ms(d).count_ns()});
        if (!lost) ++delivered;
        return true;
      },
      digest);
  if (!ok) return {};
  if (rows.size() < 2) {
    error = path + ": a delay trace needs at least two rows";
    return {};
  }
  if (delivered == 0) {
    error = path + ": every row of the delay trace is \"lost\" (at least one delay is needed)";
    return {};
  }
  return rows;
}

}  // namespace fdsim::net
