#include "models/loadsharing/regions.h"

namespace fdsim::loadsharing {

std::string_view region_name(Region r) {
  switch (r) {
    case Region::U:
      return "U";
    case Region::M:
      return "M";
    case Region::O:
      return "O";
  }
  return "?";
}

}  // namespace fdsim::loadsharing
