#include "common/output_file.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "common/error.h"

namespace ompscale {

OutputFile::OutputFile(const std::string& path)
    : path_(path), to_stdout_(path.empty() || path == "-") {
  if (to_stdout_) return;
  // A device or pipe (/dev/null, /dev/stdout, a FIFO) is written directly: renaming a temporary
  // file over it would replace the device with a regular file.
  struct stat info {};
  direct_ = ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
  tmp_ = direct_ ? path : fmt::format("{}.tmp.{}", path, getpid());
  file_.open(tmp_, direct_ ? std::ios::binary : std::ios::binary | std::ios::trunc);
  if (!file_) {
    throw std::runtime_error(
        fmt::format("{}: cannot write ({}); check the directory exists and is writable", path,
                    std::strerror(errno)));
  }
}

OutputFile::~OutputFile() {
  if (!to_stdout_ && !direct_ && !committed_) {
    file_.close();
    std::remove(tmp_.c_str());
  }
}

void OutputFile::commit() {
  if (to_stdout_) {
    std::cout.flush();
    committed_ = true;
    return;
  }
  file_.flush();
  if (!file_) throw std::runtime_error(fmt::format("{}: write failed (disk full?)", path_));
  file_.close();
  if (!direct_ && std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error(fmt::format("{}: cannot replace ({})", path_, std::strerror(errno)));
  }
  committed_ = true;
}

void write_output(const std::string& path, std::string_view content) {
  OutputFile out(path);
  out.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  out.commit();
}

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path, 0, fmt::format("cannot open ({})", std::strerror(errno)));
  // Sized once from the file's length: growing the string as it reads would double its peak.
  const std::streamoff size = in.tellg();
  std::string content;
  if (size > 0) {
    content.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(content.data(), size);
    content.resize(static_cast<std::size_t>(in.gcount()));
  } else {
    in.seekg(0);  // a pipe or special file: size unknown
    content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return content;
}

}  // namespace ompscale
