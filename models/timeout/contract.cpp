#include "models/timeout/contract.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::timeout {

void contract_failure(const char* component, const char* what, double value) {
  fdsim::internal_error("fdsim: internal error: %s: %s (%.17g)\n", component, what, value);
}

}  // namespace fdsim::timeout
