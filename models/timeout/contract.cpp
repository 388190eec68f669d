#include "models/timeout/contract.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::timeout {

void contract_failure(const char* component, const char* what, double value) {
  std::fprintf(stderr, "fdsim: internal error: %s: %s (%.17g)\n", component, what, value);
  std::abort();
}

}  // namespace fdsim::timeout
