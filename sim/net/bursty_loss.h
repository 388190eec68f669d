#pragma once
// Gilbert–Elliott bursty loss: a two-state Markov chain (good G, bad B) stepped once per packet
// on a link (or one chain shared by a group of links), with a loss probability per state.
//
// Parametrisation: per-packet transition probabilities p_gb = P(G -> B) and p_bg = P(B -> G),
// both in (0, 1]. Per packet rather than per unit of time because the chain then does not depend
// on the sending rate (a detector that sends faster sees the same burst length in packets, as
// in measured packet traces), and because the classic formulas below then hold exactly. The
// mean sojourn in a state, in packets, is 1 / p_gb (good) and 1 / p_bg (bad): a user who thinks
// in "bursts of 5 packets" writes p_bg = 0.2.
// Order of one packet: the chain first takes its step, then the packet is lost with the loss
// probability of the new state (h_G = loss_good, h_B = loss_bad). The first packet of a chain
// starts from a stationary draw, so the loss sequence is stationary from packet one.
// Formulas (pi_B = p_gb / (p_gb + p_bg), pi_G = 1 - pi_B):
//   stationary loss rate   p   = pi_G h_G + pi_B h_B
//   P(two losses in a row) p11 = sum_s pi_s h_s sum_t P(s -> t) h_t
//   mean run length of consecutive losses = p / (p - p11) = 1 / (1 - P(loss | previous lost))
//     (losses divided by run starts, exact for any stationary sequence; = 1 / p_bg when
//      h_G = 0 and h_B = 1, the Gilbert model)
//   lag-1 correlation of the loss indicator = (p11 - p^2) / (p (1 - p))
// Randomness: the sender's "net.loss" stream (the network's per-node stream): one uniform for
// the step and one for the loss (none for a state whose loss probability is 0 or 1).

#include <cstdint>

namespace fdsim::net {

struct GilbertElliott {
  double p_good_to_bad = 0.01;  // per-packet P(G -> B), (0, 1]
  double p_bad_to_good = 0.5;   // per-packet P(B -> G), (0, 1]
  double loss_good = 0;         // h_G in [0, 1]
  double loss_bad = 1;          // h_B in [0, 1]
  bool shared = false;          // one chain for every link of the group (else one per link)

  double pi_bad() const { return p_good_to_bad / (p_good_to_bad + p_bad_to_good); }
  double stationary_loss() const {
    const double pb = pi_bad();
    return (1 - pb) * loss_good + pb * loss_bad;
  }
  double p_two_losses() const {
    const double pb = pi_bad(), pg = 1 - pb;
    const double from_g = (1 - p_good_to_bad) * loss_good + p_good_to_bad * loss_bad;
    const double from_b = p_bad_to_good * loss_good + (1 - p_bad_to_good) * loss_bad;
    return pg * loss_good * from_g + pb * loss_bad * from_b;
  }
  // Mean number of consecutive lost packets in a run (infinite when every packet is lost).
  double mean_loss_run_packets() const {
    const double p = stationary_loss();
    return p / (p - p_two_losses());
  }
  double lag1_correlation() const {
    const double p = stationary_loss();
    return (p_two_losses() - p * p) / (p * (1 - p));
  }
};

}  // namespace fdsim::net
