#include "models/loadsharing/loss_tolerance.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::loadsharing {

uint32_t tolerated_broadcasts(double loss, double alpha) {
  if (!(loss >= 0 && loss < 1) || !(alpha > 0 && alpha < 1)) {
    fdsim::internal_error("fdsim: internal error: tolerated_broadcasts(%.17g, %.17g)\n", loss,
                 alpha);
  }
  // Bounded: the loader refuses a loss and alpha needing more than 1000 (scenario_loader.cpp);
  // beyond 1e6 iterations (loss just below 1) this is a contract failure, not a hang.
  uint32_t k = 1;
  for (double pk = loss; pk > alpha / 2; pk *= loss) {
    if (++k > 1000000)
      fdsim::internal_error("tolerated_broadcasts(%.17g, %.17g): more than 1e6 broadcasts", loss,
                            alpha);
  }
  return k;
}

}  // namespace fdsim::loadsharing
