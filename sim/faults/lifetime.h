#pragma once
// Up-time and down-time distributions of the failure processes (crash_process,
// group_crash_process, crash_storm), in seconds.
//
// Scenario form (an object at "$.faults[].up" or "$.faults[].down"):
//   {"distribution": "exponential", "mean_s": m}
//   {"distribution": "weibull", "shape": k, "scale_s": lambda}   F(t) = 1 - exp(-(t/lambda)^k)
//   {"distribution": "lognormal", "median_s": m, "sigma": s}     exp(N(ln m, s))
//   {"distribution": "empirical", "file": "uptimes.txt"}         uniform over the file's values
// The empirical file has the delay-samples format and reader (sim/net/delay_samples.h: one
// value in milliseconds per line, '#' comments, regular files only, 64 MiB at most, the
// content never echoed); its sample mean must be > 0 (an all-zero file would cycle at one
// instant).
// Contract: draw() uses only the given stream and, for the exponential law, exactly the draw
// the exponential crash process always made (Duration::from_seconds(rng.exponential(1/mean))),
// so shipped scenarios keep their results. A draw is capped at kMaxLifetimeS so a heavy tail
// (Weibull shape 0.05) cannot overflow simulated time; mean_s() and variance_s2() are the
// exact moments of the uncapped law (the empirical law: of the samples).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/engine/time.h"
#include "sim/scenario/reader.h"

namespace fdsim::faults {

inline constexpr double kMaxLifetimeS = 1e9;  // about 31 simulated years

class Lifetime {
 public:
  enum class Law : uint8_t { exponential, weibull, lognormal, empirical };
  static std::shared_ptr<const Lifetime> exponential(double mean_s);
  static std::shared_ptr<const Lifetime> weibull(double shape, double scale_s);
  static std::shared_ptr<const Lifetime> lognormal(double median_s, double sigma);
  static std::shared_ptr<const Lifetime> empirical(std::vector<double> samples_s);

  Duration draw(Rng& rng) const;
  Law law() const { return law_; }
  double mean_s() const;
  double variance_s2() const;
  // "weibull(shape 0.7, scale 3600 s)": for event-rate messages and traces.
  std::string describe() const;

 private:
  Lifetime() = default;
  Law law_ = Law::exponential;
  double a_ = 0, b_ = 0;  // exponential: mean; weibull: shape, scale; lognormal: median, sigma
  std::vector<double> samples_s_;
};

// Reads a lifetime object (r reads it; r must be present). Problems are reported at r's
// paths; returns nullptr on any problem. `base_dir` resolves a relative empirical file.
std::shared_ptr<const Lifetime> parse_lifetime(scenario::ObjectReader& r,
                                               const std::string& base_dir);

}  // namespace fdsim::faults
