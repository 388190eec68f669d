#include "sim/net/latency.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace fdsim::net {

namespace {

// Draws are capped so that a heavy tail (Pareto with alpha near 1) cannot overflow simulated
// time: 1e11 ms is about three simulated years.
constexpr double kMaxDrawMs = 1e11;

Duration to_duration(double ms) {
  if (!(ms >= 0.0)) ms = 0.0;  // also catches NaN
  return Duration::from_ms(std::min(ms, kMaxDrawMs));
}

[[noreturn]] void bad_parameter(const char* model, const char* what) {
  fdsim::internal_error("fdsim: internal error: %s latency: %s\n", model, what);
}

void check_p(double p) {
  if (!(p > 0.0 && p < 1.0)) {
    fdsim::internal_error("fdsim: internal error: latency quantile asked for p = %g\n", p);
  }
}

// Standard normal quantile: Acklam's rational approximation (relative error 1.15e-9) polished
// by one Halley step on erfc, which brings it to double precision.
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  const double p_low = 0.02425, p_high = 1 - p_low;
  double x;
  if (p < p_low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= p_high) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

// Both draw() overloads forward to the model's sample(), so a model draws the same way from
// either engine.
template <class Model>
class Drawing : public LatencyModel {
 public:
  Duration draw(Rng& rng) const final { return static_cast<const Model*>(this)->sample(rng); }
  Duration draw(CompactRng& rng) const final {
    return static_cast<const Model*>(this)->sample(rng);
  }
};

class Constant final : public Drawing<Constant> {
 public:
  explicit Constant(double ms) : ms_(ms), fixed_(to_duration(ms)) {}
  template <class R>
  Duration sample(R&) const { return fixed_; }
  double mean_ms() const override { return ms_; }
  double quantile_ms(double p) const override {
    check_p(p);
    return ms_;
  }
  double min_ms() const override { return ms_; }
  bool deterministic() const override { return true; }

 private:
  double ms_;
  Duration fixed_;
};

class Uniform final : public Drawing<Uniform> {
 public:
  Uniform(double lo, double hi) : lo_(lo), hi_(hi) {}
  template <class R>
  Duration sample(R& rng) const {
    return to_duration(lo_ + (hi_ - lo_) * rng.uniform01());
  }
  double mean_ms() const override { return (lo_ + hi_) / 2; }
  double quantile_ms(double p) const override {
    check_p(p);
    return lo_ + p * (hi_ - lo_);
  }
  double min_ms() const override { return lo_; }
  bool deterministic() const override { return hi_ == lo_; }

 private:
  double lo_, hi_;
};

class Exponential final : public Drawing<Exponential> {
 public:
  Exponential(double min, double mean) : min_(min), scale_(mean - min) {}
  template <class R>
  Duration sample(R& rng) const {
    return to_duration(min_ + rng.exponential(1.0 / scale_));
  }
  double mean_ms() const override { return min_ + scale_; }
  double quantile_ms(double p) const override {
    check_p(p);
    return min_ - scale_ * std::log1p(-p);
  }
  double min_ms() const override { return min_; }

 private:
  double min_, scale_;
};

class Lognormal final : public Drawing<Lognormal> {
 public:
  Lognormal(double min, double median, double sigma)
      : min_(min), mu_(std::log(median - min)), sigma_(sigma) {}
  template <class R>
  Duration sample(R& rng) const { return to_duration(min_ + rng.lognormal(mu_, sigma_)); }
  double mean_ms() const override { return min_ + std::exp(mu_ + sigma_ * sigma_ / 2); }
  double quantile_ms(double p) const override {
    check_p(p);
    return min_ + std::exp(mu_ + sigma_ * normal_quantile(p));
  }
  double min_ms() const override { return min_; }
  bool deterministic() const override { return sigma_ == 0; }

 private:
  double min_, mu_, sigma_;
};

class Pareto final : public Drawing<Pareto> {
 public:
  Pareto(double min, double alpha) : min_(min), alpha_(alpha) {}
  template <class R>
  Duration sample(R& rng) const { return to_duration(rng.pareto(alpha_, min_)); }
  double mean_ms() const override { return alpha_ * min_ / (alpha_ - 1); }
  double quantile_ms(double p) const override {
    check_p(p);
    return min_ * std::pow(1 - p, -1 / alpha_);
  }
  double min_ms() const override { return min_; }

 private:
  double min_, alpha_;
};

class Empirical final : public Drawing<Empirical> {
 public:
  explicit Empirical(std::vector<double> samples) : samples_(std::move(samples)) {
    sorted_ = samples_;
    std::sort(sorted_.begin(), sorted_.end());
    mean_ = std::accumulate(sorted_.begin(), sorted_.end(), 0.0) / double(sorted_.size());
  }
  template <class R>
  Duration sample(R& rng) const {
    return to_duration(samples_[size_t(rng.uniform_int(0, int64_t(samples_.size()) - 1))]);
  }
  double mean_ms() const override { return mean_; }
  // The inverse of the empirical CDF: the smallest sample x with F_n(x) >= p.
  double quantile_ms(double p) const override {
    check_p(p);
    const double n = double(sorted_.size());
    size_t k = size_t(std::ceil(p * n - 1e-9 * n));
    if (k < 1) k = 1;
    if (k > sorted_.size()) k = sorted_.size();
    return sorted_[k - 1];
  }
  double min_ms() const override { return sorted_.front(); }
  bool deterministic() const override { return sorted_.front() == sorted_.back(); }

 private:
  std::vector<double> samples_;  // in file order: draws index this, so sorting changes nothing
  std::vector<double> sorted_;
  double mean_ = 0;
};

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

std::shared_ptr<const LatencyModel> constant_latency(double ms) {
  if (!finite_nonneg(ms)) bad_parameter("constant", "ms must be finite and >= 0");
  return std::make_shared<Constant>(ms);
}

std::shared_ptr<const LatencyModel> uniform_latency(double min_ms, double max_ms) {
  if (!finite_nonneg(min_ms) || !std::isfinite(max_ms) || max_ms < min_ms)
    bad_parameter("uniform", "need 0 <= min_ms <= max_ms");
  return std::make_shared<Uniform>(min_ms, max_ms);
}

std::shared_ptr<const LatencyModel> exponential_latency(double min_ms, double mean_ms) {
  if (!finite_nonneg(min_ms) || !std::isfinite(mean_ms) || mean_ms <= min_ms)
    bad_parameter("exponential", "need 0 <= min_ms < mean_ms");
  return std::make_shared<Exponential>(min_ms, mean_ms);
}

std::shared_ptr<const LatencyModel> lognormal_latency(double min_ms, double median_ms,
                                                      double sigma) {
  if (!finite_nonneg(min_ms) || !std::isfinite(median_ms) || median_ms <= min_ms ||
      !finite_nonneg(sigma))
    bad_parameter("lognormal", "need 0 <= min_ms < median_ms and sigma >= 0");
  return std::make_shared<Lognormal>(min_ms, median_ms, sigma);
}

std::shared_ptr<const LatencyModel> pareto_latency(double min_ms, double alpha) {
  if (!std::isfinite(min_ms) || min_ms <= 0 || !std::isfinite(alpha) || alpha <= 1)
    bad_parameter("pareto", "need min_ms > 0 and alpha > 1");
  return std::make_shared<Pareto>(min_ms, alpha);
}

std::shared_ptr<const LatencyModel> empirical_latency(std::vector<double> samples_ms) {
  if (samples_ms.empty()) bad_parameter("empirical", "no samples");
  for (double v : samples_ms)
    if (!finite_nonneg(v)) bad_parameter("empirical", "samples must be finite and >= 0");
  return std::make_shared<Empirical>(std::move(samples_ms));
}

}  // namespace fdsim::net
