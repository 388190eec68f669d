// fdsim timeout: the Hou-Shin optimal timeout of docs/models/hou-shin-timeout.md for given parameters, through
// the code the load-sharing model uses (loadsharing::exit_chain_for / silence_chain_for, the
// TimeoutTable with its 4-significant-digit rounding of the rates, hou_shin_timeout).
//
// Prints, for a sender that broadcast in region R (or in the region of queue length S) with
// piggy-backed rates lambda_r and mu: E[W] (mean exit time of the region), S(t) = P(W > t) at
// each --t, and T_out(alpha) = the alpha-quantile of W rounded up to the ns, plus the delay
// allowance, at each --alpha. With --loss p > 0, S and T_out are those of the silence until the
// first broadcast that gets through (timeout/silence_chain.h), as the hou_shin arm computes
// them on a link with loss p; E[W] stays the loss-free mean exit time. Exit codes: 0 ok, 2 bad
// input (one line per problem).

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/loadsharing/hou_shin_timeout.h"
#include "models/timeout/exit_chain.h"
#include "models/timeout/silence_chain.h"
#include "models/timeout/timeout_table.h"
#include "sim/cli/commands.h"
#include "sim/cli/timeout_swim.h"

namespace fdsim::cli {

namespace {

struct TimeoutArgs {
  double lambda = 0.8, mu = 1.0;
  double lambda_u = -1, lambda_m = -1, lambda_o = -1;  // < 0: --lambda
  int64_t th_u = 1, th_f = 4;
  std::string region;
  int64_t state = -1;  // start state s0 (queue length); -1: the region's entry state
  bool state_given = false;
  std::vector<double> alphas;
  std::vector<double> times;
  double loss = 0;
  double allowance_ms = 0;
  bool json = false;
};

double rate_or(double specific, double fallback) { return specific >= 0 ? specific : fallback; }

// Problems with the arguments, one line each.
std::vector<std::string> check(const TimeoutArgs& a) {
  std::vector<std::string> p;
  auto bad = [&](const std::string& what) { p.push_back("fdsim timeout: " + what); };
  const std::pair<const char*, double> rates[] = {{"--lambda", a.lambda},
                                                   {"--lambda-u", a.lambda_u},
                                                   {"--lambda-m", a.lambda_m},
                                                   {"--lambda-o", a.lambda_o}};
  for (const auto& [name, v] : rates)
    if (!std::isfinite(v) || (v < 0 && std::string(name) == "--lambda"))
      bad(std::string(name) + ": expected a finite rate >= 0, got " + std::to_string(v));
  if (!(a.mu > 0) || !std::isfinite(a.mu))
    bad("--mu: expected a finite rate > 0, got " + std::to_string(a.mu));
  if (a.th_u < 0) bad("--th-u: expected an integer >= 0");
  if (a.th_f <= a.th_u) bad("--th-f: expected an integer > th_u");
  // At most 1000, as th_f of a scenario with a hou_shin arm (models/loadsharing/config.cpp):
  // the exit-time chain of a region is dense, and --th-u 50000 --th-f 100000 --region U ran
  // out of memory or for minutes (issue 24).
  if (a.th_f > 1000) bad("--th-f: expected an integer <= 1000 (the exit-time chain is dense)");
  if (!a.region.empty() && a.region != "U" && a.region != "M" && a.region != "O")
    bad("--region: expected U, M or O, got \"" + a.region + "\"");
  if (a.region.empty() && a.state < 0) bad("give --region or --state");
  // Issue 24: "--state -1" was taken silently as "the region's entry state".
  if (a.state_given && a.state < 0)
    bad("--state: expected a queue length >= 0, got " + std::to_string(a.state));
  // Rates and times whose product the uniformization series sums term by term: beyond these
  // bounds a single call ran for minutes or overflowed (issue 24, `fdsim timeout` with an
  // extreme --lambda or --t).
  for (const auto& [name, v] : rates)
    if (std::isfinite(v) && v > 1e9)
      bad(std::string(name) + ": expected a rate <= 1e9 per s, got " + std::to_string(v));
  if (std::isfinite(a.mu) && a.mu > 1e9) bad("--mu: expected a rate <= 1e9 per s");
  for (double t : a.times)
    if (std::isfinite(t) && t > 1e9) bad("--t: expected a time <= 1e9 s, got " + std::to_string(t));
  for (double x : a.alphas)
    if (!(x > 0 && x < 1)) bad("--alpha: expected a probability > 0 and < 1, got " + std::to_string(x));
  for (double t : a.times)
    if (!(t >= 0) || !std::isfinite(t)) bad("--t: expected a finite time >= 0 s, got " + std::to_string(t));
  if (!(a.loss >= 0 && a.loss < 1)) bad("--loss: expected a probability >= 0 and < 1");
  if (!(a.allowance_ms >= 0) || !std::isfinite(a.allowance_ms) || a.allowance_ms > 1e12)
    bad("--allowance-ms: expected a finite number >= 0");
  if (a.loss > 0 && !(rate_or(a.lambda_u, a.lambda) > 0 && rate_or(a.lambda_m, a.lambda) > 0 &&
                      rate_or(a.lambda_o, a.lambda) > 0))
    bad("--loss > 0 needs every region's input rate > 0");
  return p;
}

loadsharing::Region region_of(const TimeoutArgs& a) {
  if (a.region == "U") return loadsharing::Region::U;
  if (a.region == "M") return loadsharing::Region::M;
  if (a.region == "O") return loadsharing::Region::O;
  if (a.state <= a.th_u) return loadsharing::Region::U;
  return a.state <= a.th_f ? loadsharing::Region::M : loadsharing::Region::O;
}

nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

int run_timeout(const TimeoutArgs& a) {
  const std::vector<std::string> problems = check(a);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  // The broadcast an observer would have received.
  loadsharing::Broadcast b;
  b.region = region_of(a);
  b.estimates.mu_per_s = a.mu;
  b.estimates.lambda_per_s = a.lambda;
  b.estimates.region_input_per_s = {rate_or(a.lambda_u, a.lambda), rate_or(a.lambda_m, a.lambda),
                                    rate_or(a.lambda_o, a.lambda)};
  const loadsharing::RegionThresholds th{double(a.th_u), double(a.th_f)};
  // The region's entry state by default: U is entered at th_u (from above) or starts at 0;
  // we take th_u, as after a completion from M; M at th_u + 1 (from U); O at th_f + 1.
  int64_t s0 = a.state;
  if (s0 < 0)
    s0 = b.region == loadsharing::Region::U   ? a.th_u
         : b.region == loadsharing::Region::M ? a.th_u + 1
                                              : a.th_f + 1;
  b.queue_length = s0;
  b.load = double(s0);
  int64_t chain_s0 = 0;
  const timeout::ExitChain chain =
      loadsharing::exit_chain_for(b, th, loadsharing::LoadIndex::ql, &chain_s0);
  if (chain_s0 != s0) {
    std::cerr << "fdsim timeout: --state " << s0 << " is outside region " << a.region << " {"
              << chain.lo << ".." << chain.hi << "}\n";
    return kExitBadInput;
  }
  const timeout::SilenceChain silence =
      loadsharing::silence_chain_for(b, th, loadsharing::LoadIndex::ql, a.loss, &chain_s0);
  // The rounded chain is what the model's TimeoutTable uses: report with it.
  const timeout::ExitChain rounded = timeout::TimeoutTable::rounded(chain);
  timeout::SilenceChain rounded_silence = silence;
  for (double& l : rounded_silence.lambda) l = timeout::round_4_significant(l).value();
  rounded_silence.mu = rounded.mu;

  timeout::TimeoutTable table;
  const Duration allowance = Duration::from_ms(a.allowance_ms);
  const double mean = timeout::mean_exit_time(rounded, s0);
  nlohmann::json out = {{"region", std::string(loadsharing::region_name(b.region))},
                        {"s0", s0},
                        {"region_states", {chain.lo, chain.hi}},
                        {"reflecting_top", chain.reflecting_top},
                        {"lambda_per_s", rounded.lambda},
                        {"mu_per_s", rounded.mu},
                        {"loss", a.loss},
                        {"allowance_ms", a.allowance_ms},
                        {"mean_exit_time_s", finite_or_null(mean)}};
  nlohmann::json surv = nlohmann::json::array();
  for (double t : a.times) {
    const double s = a.loss > 0 ? timeout::silence_survival(rounded_silence, s0, t)
                                : timeout::survival(rounded, s0, t);
    surv.push_back({{"t_s", t}, {"survival", s}});
  }
  out["survival"] = surv;
  nlohmann::json touts = nlohmann::json::array();
  for (double alpha : a.alphas) {
    const Duration t_out = loadsharing::hou_shin_timeout(table, b, th, loadsharing::LoadIndex::ql,
                                                         alpha, allowance, a.loss);
    const bool never = t_out == Duration::max();
    touts.push_back({{"alpha", alpha},
                     {"t_out_s", never ? nlohmann::json() : nlohmann::json(t_out.seconds())}});
  }
  out["t_out"] = touts;

  if (a.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("region %s {%lld..%lld}%s, s0 = %lld, lambda = %.6g/s, mu = %.6g/s", out["region"].get<std::string>().c_str(),
              (long long)chain.lo, (long long)chain.hi, chain.reflecting_top ? " (reflecting top)" : "",
              (long long)s0, rounded.lambda, rounded.mu);
  if (a.loss > 0) std::printf(", loss = %.6g", a.loss);
  std::printf("\n");
  char label[64];
  if (std::isfinite(mean))
    std::printf("%-18s %.6f s\n", "E[W]", mean);
  else
    std::printf("%-18s never (the exit is unreachable)\n", "E[W]");
  for (const auto& s : surv) {
    std::snprintf(label, sizeof label, "S(%g s)", s["t_s"].get<double>());
    std::printf("%-18s %.6g\n", label, s["survival"].get<double>());
  }
  for (const auto& t : touts) {
    std::snprintf(label, sizeof label, "T_out(%g)", t["alpha"].get<double>());
    if (t["t_out_s"].is_null())
      std::printf("%-18s never\n", label);
    else
      std::printf("%-18s %.9f s\n", label, t["t_out_s"].get<double>());
  }
  return kExitOk;
}

}  // namespace

void add_timeout_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TimeoutArgs>();
  auto swim = std::make_shared<SwimTimeoutArgs>();
  auto model = std::make_shared<std::string>("hou_shin");
  CLI::App* sub = app.add_subcommand(
      "timeout",
      "Print the Hou-Shin exit-time mean E[W], survival S(t) and T_out(alpha), or (--model "
      "swim) memberlist's suspicion and probe timeouts");
  sub->add_option("--model", *model, "hou_shin (default) or swim")
      ->check(CLI::IsMember({"hou_shin", "swim"}));
  sub->add_option("--members", swim->members, "swim: cluster size n (required with --model swim)");
  sub->add_option("--probe-interval-ms", swim->probe_interval_ms, "swim: ProbeInterval (1000)");
  sub->add_option("--probe-timeout-ms", swim->probe_timeout_ms, "swim: ProbeTimeout (500)");
  sub->add_option("--suspicion-mult", swim->suspicion_mult, "swim: SuspicionMult, alpha (4)");
  sub->add_option("--suspicion-max-timeout-mult", swim->suspicion_max_timeout_mult,
                  "swim: SuspicionMaxTimeoutMult (6)");
  sub->add_option("--confirmations", swim->confirmations,
                  "swim: Lifeguard's K (default: memberlist's suspicion-mult - 2)");
  sub->add_option("--awareness-max-multiplier", swim->awareness_max_multiplier,
                  "swim: AwarenessMaxMultiplier (8)");
  sub->add_flag("--no-lifeguard", swim->no_lifeguard,
                "swim: plain SWIM (no awareness, no dynamic suspicion)");
  sub->add_option("--lambda", args->lambda, "Region input rate lambda_r, per s (default 0.8)");
  sub->add_option("--lambda-u", args->lambda_u, "Input rate in U (default: --lambda)");
  sub->add_option("--lambda-m", args->lambda_m, "Input rate in M (default: --lambda)");
  sub->add_option("--lambda-o", args->lambda_o, "Input rate in O (default: --lambda)");
  sub->add_option("--mu", args->mu, "Execution rate mu, per s (default 1)");
  sub->add_option("--th-u", args->th_u, "Threshold TH_u on the queue length (default 1)");
  sub->add_option("--th-f", args->th_f, "Threshold TH_f on the queue length (default 4)");
  sub->add_option("--region", args->region, "Region of the broadcast: U, M or O");
  sub->add_option("--state", args->state,
                  "Queue length s0 at the broadcast (default: the region's entry state)")
      ->each([args](const std::string&) { args->state_given = true; });
  sub->add_option("--alpha", args->alphas, "False-diagnosis bound(s) (default 0.05 0.01)");
  sub->add_option("--t", args->times, "Times in s at which to print S(t) (default 5 10)");
  sub->add_option("--loss", args->loss, "Broadcast loss probability (default 0)");
  sub->add_option("--allowance-ms", args->allowance_ms, "Delay allowance added to T_out (0)");
  sub->add_flag("--json", args->json, "Print JSON instead of a table");
  sub->footer(
      "Uses the model's own code: rates rounded to 4 significant digits, the quantile rounded\n"
      "up to the ns. U = {0..TH_u}, M = {TH_u+1..TH_f}, O = {TH_f+1..TH_f+41} (reflecting top).\n"
      "Examples:\n"
      "  fdsim timeout --lambda 0.8 --mu 1 --region U --state 1 --t 5 --t 10\n"
      "  fdsim timeout --region M --state 2 --alpha 0.05 --alpha 0.01 --json\n"
      "  fdsim timeout --region O --loss 0.02 --alpha 0.01 --allowance-ms 20\n"
      "  fdsim timeout --model swim --members 1000 --confirmations 4 --json\n");
  sub->callback([args, swim, model, &exit_code] {
    if (*model == "swim") {
      swim->json = args->json;
      exit_code = run_swim_timeout(*swim);
      return;
    }
    if (args->alphas.empty()) args->alphas = {0.05, 0.01};
    if (args->times.empty()) args->times = {5.0, 10.0};
    exit_code = run_timeout(*args);
  });
}

}  // namespace fdsim::cli
