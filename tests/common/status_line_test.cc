// StatusLine (common/status_line.h): one line on stderr redrawn in place, cut at its width,
// cleared only when drawn, and nothing at all when disabled.
#include "common/status_line.h"

#include <gtest/gtest.h>

#include <string>

namespace ompscale {
namespace {

TEST(StatusLine, RedrawsOneLineInPlaceAndClearsIt) {
  StatusLine line(true);
  ::testing::internal::CaptureStderr();
  line.clear();  // nothing drawn yet: nothing to clear
  line.show("run 1/2");
  line.show(std::string(100, 'x'));
  line.clear();
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string blank(StatusLine::kWidth, ' ');
  EXPECT_EQ(err, "\rrun 1/2" + std::string(StatusLine::kWidth - 7, ' ') + "\r" +
                     std::string(StatusLine::kWidth, 'x') + "\r" + blank + "\r");
}

TEST(StatusLine, DisabledWritesNothing) {
  StatusLine line(false);
  ::testing::internal::CaptureStderr();
  line.show("run 1/2");
  line.clear();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace ompscale
