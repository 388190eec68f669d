#pragma once
// EXPECT_INTERNAL_ERROR(statement, pattern): `statement` throws fdsim::InternalError whose
// message contains a match of `regex` (ECMAScript). Internal errors used to abort the process
// (EXPECT_DEATH); since issue 24 they throw so that a sweep loses one run, not the process
// (sim/engine/internal_error.h).
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "sim/engine/internal_error.h"

#define EXPECT_INTERNAL_ERROR(statement, pattern)                                             \
  do {                                                                                      \
    try {                                                                                   \
      (void)(statement);                                                                    \
      ADD_FAILURE() << "no fdsim::InternalError from " #statement;                          \
    } catch (const ::fdsim::InternalError& internal_error_caught) {                         \
      EXPECT_TRUE(std::regex_search(std::string(internal_error_caught.what()),              \
                                    std::regex(pattern)))                                     \
          << internal_error_caught.what() << " does not match " << (pattern);                 \
    }                                                                                       \
  } while (0)
