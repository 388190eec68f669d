#pragma once
// How many consecutive broadcasts an observer of the extra-broadcast scheme (docs/models/hou-shin-timeout.md, "Extra broadcasts")
// lets go missing before it suspects the sender, so that alpha stays a bound on the
// false-suspicion probability when datagrams are lost (issue 13, item 5).
//
// Derivation. With extra broadcasts a healthy sender broadcasts again at most I(b) after each
// broadcast b (I(b) = T_out(b) - send_margin, at least 1 ms). Let the sender keep, after every
// broadcast, the deadline of its next one at the SMALLEST of the intervals I promised by its last
// k broadcasts (this one included). Then the k broadcasts after b are all sent within k I(b)
// of b (each of the k gaps is bounded by a promise of a window that contains b). An observer
// that received b and waits T_out(b) + (k - 1) I(b) (T_out includes the delay allowance a, and
// I(b) <= T_out(b) - a when the margin is at least the allowance, the default) therefore
// suspects a healthy sender only if those k broadcasts are all lost, or the one that arrives is
// delayed by more than the allowance beyond b's delay. With independent losses of probability
// p the first event has probability p^k; we take the smallest k >= 1 with p^k <= alpha / 2,
// leaving the other half of alpha to the delays (the allowance covers their 99th percentile, and
// for k >= 2 a late broadcast has (k - 1) I(b) of extra slack). With p = 0, k = 1 and this is the
// lossless scheme unchanged. Example: p = 0.02: k = 1 for alpha = 0.05, k = 2 for alpha = 0.01.
// Without extra broadcasts (arm hou_shin) the loss enters T_out itself (hou_shin_timeout.h).

#include <cstdint>

namespace fdsim::loadsharing {

// Smallest k >= 1 with loss^k <= alpha / 2 (1 when loss is 0); loss in [0, 1), alpha in (0, 1).
uint32_t tolerated_broadcasts(double loss, double alpha);

}  // namespace fdsim::loadsharing
