#include "models/detectors/config.h"

#include "models/detectors/fixed_detector.h"
#include "models/detectors/nfd_e_detector.h"
#include "models/detectors/nfd_s_detector.h"

namespace fdsim::detectors {

namespace {
constexpr int64_t kMaxWindow = 1'000'000;
constexpr double kMaxMs = 1e9;  // ~11.6 days: far beyond any sensible detector parameter
}  // namespace

std::string_view kind_name(DetectorKind k) {
  switch (k) {
    case DetectorKind::fixed: return "fixed";
    case DetectorKind::nfd_s: return "nfd_s";
    case DetectorKind::nfd_e: return "nfd_e";
    case DetectorKind::phi_accrual: return "phi_accrual";
    case DetectorKind::exponential_accrual: return "exponential_accrual";
    case DetectorKind::bertier: return "bertier";
    case DetectorKind::quantile: return "quantile";
  }
  return "?";
}

DetectorConfig parse_detector_config(scenario::ObjectReader& r) {
  DetectorConfig c;
  const std::string kind = r.required_enumeration(
      "kind", {"fixed", "nfd_s", "nfd_e", "phi_accrual", "exponential_accrual", "bertier",
               "quantile"});
  auto window = [&](int64_t def) { return size_t(r.integer("window", def, 1, kMaxWindow)); };
  if (kind == "fixed") {
    c.kind = DetectorKind::fixed;
    c.timeout = Duration::from_ms(r.positive("timeout_ms", 3000, 0.0, kMaxMs));
  } else if (kind == "nfd_s") {
    c.kind = DetectorKind::nfd_s;
    c.delta = r.duration_ms("delta_ms", 100, 0.0, kMaxMs);
  } else if (kind == "nfd_e") {
    c.kind = DetectorKind::nfd_e;
    c.nfd_e_alpha = r.duration_ms("alpha_ms", 100, 0.0, kMaxMs);
    c.nfd_e_window = window(100);
  } else if (kind == "phi_accrual") {
    c.kind = DetectorKind::phi_accrual;
    c.phi.threshold = r.positive("threshold", 8.0, 0.0, 1e6);
    c.phi.window = window(1000);
    c.phi.min_std = Duration::from_ms(r.positive("min_std_ms", 100, 0.0, kMaxMs));
    c.phi.acceptable_pause = r.duration_ms("acceptable_pause_ms", 3000, 0.0, kMaxMs);
    const std::optional<double> first = r.optional_number("first_interval_ms", 1e-6, kMaxMs);
    c.phi.first_interval = first ? Duration::from_ms(*first) : Duration::zero();
    if (first && c.phi.first_interval <= Duration::zero())
      r.error("first_interval_ms", "expected a number >= 1e-06 (one nanosecond or more)");
  } else if (kind == "exponential_accrual") {
    c.kind = DetectorKind::exponential_accrual;
    c.exponential.threshold = r.positive("threshold", 8.0, 0.0, 1e6);
    c.exponential.window = window(1000);
    c.exponential.max_interval = r.duration_ms("max_interval_ms", 2000, 0.0, kMaxMs);
    c.exponential.initial_interval =
        Duration::from_ms(r.positive("initial_interval_ms", 2000, 0.0, kMaxMs));
  } else if (kind == "bertier") {
    c.kind = DetectorKind::bertier;
    c.bertier.window = window(100);
    c.bertier.beta = r.number("beta", 1.0, 0.0, 1e6);
    c.bertier.phi = r.number("phi", 4.0, 0.0, 1e6);
    c.bertier.gamma = r.positive("gamma", 0.1, 0.0, 1.0);
  } else if (kind == "quantile") {
    c.kind = DetectorKind::quantile;
    c.quantile.alpha = r.positive("alpha", 0.01, 0.0, 1.0);
    if (c.quantile.alpha >= 1.0) r.error("alpha", "expected a number > 0 and < 1, got 1");
    r.exclusive_max("alpha");
    c.quantile.delay_allowance = r.duration_ms("delay_allowance_ms", 0, 0.0, kMaxMs);
    c.quantile.prior_shape = r.positive("prior_shape", 1.0, 0.0, 1e9);
    c.quantile.prior_excess = Duration::from_ms(r.positive("prior_excess_ms", 100, 0.0, kMaxMs));
    c.quantile.forgetting_per_heartbeat = r.positive("forgetting_per_heartbeat", 1.0, 0.0, 1.0);
  }
  // Guard against values that are positive but round to 0 ns.
  if (c.kind == DetectorKind::fixed && c.timeout <= Duration::zero())
    r.error("timeout_ms", "expected at least one nanosecond");
  if (c.kind == DetectorKind::phi_accrual && c.phi.min_std <= Duration::zero())
    r.error("min_std_ms", "expected at least one nanosecond");
  if (c.kind == DetectorKind::exponential_accrual &&
      c.exponential.initial_interval <= Duration::zero())
    r.error("initial_interval_ms", "expected at least one nanosecond");
  if (c.kind == DetectorKind::quantile && c.quantile.prior_excess <= Duration::zero())
    r.error("prior_excess_ms", "expected at least one nanosecond");
  return c;
}

std::unique_ptr<Detector> make_detector(const DetectorConfig& c, Duration heartbeat_period) {
  switch (c.kind) {
    case DetectorKind::fixed: return std::make_unique<FixedDetector>(c.timeout);
    case DetectorKind::nfd_s: return std::make_unique<NfdSDetector>(heartbeat_period, c.delta);
    case DetectorKind::nfd_e:
      return std::make_unique<NfdEDetector>(heartbeat_period, c.nfd_e_alpha, c.nfd_e_window);
    case DetectorKind::phi_accrual:
      return std::make_unique<PhiAccrualDetector>(heartbeat_period, c.phi);
    case DetectorKind::exponential_accrual:
      return std::make_unique<ExponentialAccrualDetector>(c.exponential);
    case DetectorKind::bertier: return std::make_unique<BertierDetector>(heartbeat_period, c.bertier);
    case DetectorKind::quantile:
      return std::make_unique<QuantileDetector>(heartbeat_period, c.quantile);
  }
  return nullptr;
}

}  // namespace fdsim::detectors
