// Installs the process clock once, with default options, before any sync test runs: init_clock()
// is first-call-wins, so no test may be the first to call it with options of its own.

#include <gtest/gtest.h>

#include "sync/clock.h"

namespace {

class ClockEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ompscale::sync::init_clock(); }
};

[[maybe_unused]] ::testing::Environment* const clock_environment =
    ::testing::AddGlobalTestEnvironment(new ClockEnvironment);

}  // namespace
