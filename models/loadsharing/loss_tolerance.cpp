#include "models/loadsharing/loss_tolerance.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::loadsharing {

uint32_t tolerated_broadcasts(double loss, double alpha) {
  if (!(loss >= 0 && loss < 1) || !(alpha > 0 && alpha < 1)) {
    std::fprintf(stderr, "fdsim: internal error: tolerated_broadcasts(%.17g, %.17g)\n", loss,
                 alpha);
    std::abort();
  }
  uint32_t k = 1;
  for (double pk = loss; pk > alpha / 2; pk *= loss) ++k;
  return k;
}

}  // namespace fdsim::loadsharing
