#include "common/terminal.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace ompscale {
namespace {

// A pseudo-terminal of `columns` columns: what output_width sees when the user's terminal is it.
class PseudoTerminal {
 public:
  explicit PseudoTerminal(unsigned short columns) {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0) return;
    slave_ = ::open(::ptsname(master_), O_RDWR | O_NOCTTY);
    winsize size{};
    size.ws_col = columns;
    size.ws_row = 40;
    if (slave_ >= 0) ::ioctl(slave_, TIOCSWINSZ, &size);
  }
  ~PseudoTerminal() {
    if (slave_ >= 0) ::close(slave_);
    if (master_ >= 0) ::close(master_);
  }
  int fd() const { return slave_; }

 private:
  int master_ = -1;
  int slave_ = -1;
};

TEST(OutputWidth, TerminalWidthColumnsVariableOrNoLimit) {
  ::unsetenv("COLUMNS");
  const PseudoTerminal terminal(97);
  ASSERT_GE(terminal.fd(), 0) << "no pseudo-terminal";
  EXPECT_EQ(output_width(terminal.fd()), 97u);
  EXPECT_EQ(help_width(terminal.fd()), 97u);

  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_EQ(output_width(pipe_fds[1]), 0u);  // a pipe or file: whole lines
  EXPECT_EQ(help_width(pipe_fds[1]), 100u);
  ::setenv("COLUMNS", "120", 1);
  EXPECT_EQ(output_width(pipe_fds[1]), 120u);
  EXPECT_EQ(help_width(pipe_fds[1]), 100u);
  ::setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(output_width(pipe_fds[1]), 0u);
  ::unsetenv("COLUMNS");
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

}  // namespace
}  // namespace ompscale
