// Precompiled header of the GoogleTest executables: the library header plus gtest (about 1 s of
// parsing per test file). Same contract as fdsim_pch.h.
#pragma once

#include "sim/pch/fdsim_pch.h"

#include <gtest/gtest.h>
