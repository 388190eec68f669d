#include "sim/faults/lifetime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "sim/net/delay_samples.h"
#include "sim/scenario/data_file.h"

namespace fdsim::faults {

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string resolve_path(const std::string& file, const std::string& base_dir) {
  std::filesystem::path p(file);
  if (p.is_absolute() || base_dir.empty()) return p.string();
  return (std::filesystem::path(base_dir) / p).string();
}

Duration capped(double s) { return Duration::from_seconds(std::min(s, kMaxLifetimeS)); }

}  // namespace

std::shared_ptr<const Lifetime> Lifetime::exponential(double mean_s) {
  auto l = std::shared_ptr<Lifetime>(new Lifetime());
  l->law_ = Law::exponential;
  l->a_ = mean_s;
  return l;
}

std::shared_ptr<const Lifetime> Lifetime::weibull(double shape, double scale_s) {
  auto l = std::shared_ptr<Lifetime>(new Lifetime());
  l->law_ = Law::weibull;
  l->a_ = shape;
  l->b_ = scale_s;
  return l;
}

std::shared_ptr<const Lifetime> Lifetime::lognormal(double median_s, double sigma) {
  auto l = std::shared_ptr<Lifetime>(new Lifetime());
  l->law_ = Law::lognormal;
  l->a_ = median_s;
  l->b_ = sigma;
  return l;
}

std::shared_ptr<const Lifetime> Lifetime::empirical(std::vector<double> samples_s) {
  auto l = std::shared_ptr<Lifetime>(new Lifetime());
  l->law_ = Law::empirical;
  l->samples_s_ = std::move(samples_s);
  return l;
}

Duration Lifetime::draw(Rng& rng) const {
  switch (law_) {
    case Law::exponential:
      // The draw the exponential crash process always made (byte-identical results).
      return Duration::from_seconds(rng.exponential(1.0 / a_));
    case Law::weibull: {
      // Inversion: F^-1(u) = scale (-ln(1 - u))^(1/shape); uniform01() is in [0, 1).
      const double u = rng.uniform01();
      return capped(b_ * std::pow(-std::log1p(-u), 1.0 / a_));
    }
    case Law::lognormal:
      return capped(rng.lognormal(std::log(a_), b_));
    case Law::empirical:
      return capped(samples_s_[size_t(rng.uniform_int(0, int64_t(samples_s_.size()) - 1))]);
  }
  return Duration::zero();
}

double Lifetime::mean_s() const {
  switch (law_) {
    case Law::exponential: return a_;
    case Law::weibull: return b_ * std::tgamma(1.0 + 1.0 / a_);
    case Law::lognormal: return a_ * std::exp(b_ * b_ / 2);
    case Law::empirical: {
      double s = 0;
      for (double x : samples_s_) s += x;
      return s / double(samples_s_.size());
    }
  }
  return 0;
}

double Lifetime::variance_s2() const {
  switch (law_) {
    case Law::exponential: return a_ * a_;
    case Law::weibull: {
      const double g1 = std::tgamma(1.0 + 1.0 / a_), g2 = std::tgamma(1.0 + 2.0 / a_);
      return b_ * b_ * (g2 - g1 * g1);
    }
    case Law::lognormal: return (std::exp(b_ * b_) - 1) * a_ * a_ * std::exp(b_ * b_);
    case Law::empirical: {
      const double m = mean_s();
      double s = 0;
      for (double x : samples_s_) s += (x - m) * (x - m);
      return s / double(samples_s_.size());
    }
  }
  return 0;
}

std::string Lifetime::describe() const {
  switch (law_) {
    case Law::exponential: return "exponential(mean " + fmt(a_) + " s)";
    case Law::weibull: return "weibull(shape " + fmt(a_) + ", scale " + fmt(b_) + " s)";
    case Law::lognormal: return "lognormal(median " + fmt(a_) + " s, sigma " + fmt(b_) + ")";
    case Law::empirical:
      return "empirical(" + std::to_string(samples_s_.size()) + " samples, mean " +
             fmt(mean_s()) + " s)";
  }
  return "?";
}

std::shared_ptr<const Lifetime> parse_lifetime(scenario::ObjectReader& r,
                                               const std::string& base_dir) {
  auto& diag = r.diagnostics();
  const size_t before = diag.problems.size();
  const std::string law =
      r.required_enumeration("distribution", {"exponential", "weibull", "lognormal", "empirical"});
  if (diag.problems.size() != before) {
    // Unknown law: its parameters cannot be checked; do not also report them as unknown.
    for (const char* k : {"mean_s", "shape", "scale_s", "median_s", "sigma", "file"})
      if (r.has(k)) r.consume(k);
    return nullptr;
  }
  std::shared_ptr<const Lifetime> out;
  if (law == "exponential") {
    const double mean = r.required_positive("mean_s", 0, kMaxLifetimeS);
    if (diag.problems.size() == before) out = Lifetime::exponential(mean);
  } else if (law == "weibull") {
    // Shape below 0.05 makes Gamma(1 + 2/k) overflow-prone and the mean meaningless in a run.
    const double shape = r.required_number("shape", 0.05, 20);
    const double scale = r.required_positive("scale_s", 0, kMaxLifetimeS);
    if (diag.problems.size() == before) out = Lifetime::weibull(shape, scale);
  } else if (law == "lognormal") {
    const double median = r.required_positive("median_s", 0, kMaxLifetimeS);
    const double sigma = r.required_number("sigma", 0, 10);
    if (diag.problems.size() == before) out = Lifetime::lognormal(median, sigma);
  } else {  // empirical
    const std::string file = r.required_string("file");
    if (diag.problems.size() == before) {
      std::string err, digest;
      std::vector<double> ms =
          net::load_delay_samples_ms(resolve_path(file, base_dir), err, &digest);
      if (!err.empty()) {
        r.error("file", err);
        r.consume("file_digest");
      } else {
        // The file's digest joins the run identity (sim/scenario/data_file.h).
        scenario::record_data_digest(r, "file", digest);
        double sum = 0;
        for (double& x : ms) {
          x /= 1e3;  // ms -> s
          sum += x;
        }
        if (!(sum > 0))
          r.error("file", "expected times with a mean > 0 ms, got only zeros (" +
                              std::to_string(ms.size()) + " samples)");
        else
          out = Lifetime::empirical(std::move(ms));
      }
    }
  }
  return diag.problems.size() == before ? out : nullptr;
}

}  // namespace fdsim::faults
