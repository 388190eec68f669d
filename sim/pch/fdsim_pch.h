// Precompiled header of every fdsim library and executable (CMake target_precompile_headers).
//
// Contract: only third-party and standard headers that most translation units include anyway;
// never a project header (a change to one would rebuild everything). The heavy one is
// nlohmann/json (about 2 s of parsing per translation unit at -O2); the standard headers ride
// along for free. Code must still include what it uses: the build is also checked without the
// precompiled header (FDSIM_PCH=OFF).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
