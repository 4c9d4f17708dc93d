#include "common/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace ompscale {
namespace {

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/output-file-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(OutputFileTest, RegularFileIsReplacedWhole) {
  const std::string path = dir_ + "/out.txt";
  write_output(path, "first\n");
  write_output(path, "second\n");
  EXPECT_EQ(read_input(path), "second\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);  // no temp left
}

TEST_F(OutputFileTest, UncommittedOutputLeavesNothing) {
  const std::string path = dir_ + "/out.txt";
  {
    OutputFile out(path);
    out.stream() << "partial";
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 0);
}

// A pipe or device is written into, never replaced by a regular file (renaming a temporary file
// over /dev/null once turned it into a file on this machine).
TEST_F(OutputFileTest, PipeIsWrittenDirectlyAndStaysAPipe) {
  const std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo);
    std::stringstream s;
    s << in.rdbuf();
    received = s.str();
  });
  write_output(fifo, "through the pipe\n");
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  struct stat info {};
  ASSERT_EQ(stat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

}  // namespace
}  // namespace ompscale
