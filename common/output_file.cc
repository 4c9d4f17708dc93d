#include "common/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/error.h"

namespace ompscale {

void write_output(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
    std::cout.flush();
    return;
  }
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw std::runtime_error(
          fmt::format("{}: cannot write ({}); check the directory exists and is writable", path,
                      std::strerror(errno)));
    }
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error(fmt::format("{}: write failed (disk full?)", path));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("{}: cannot replace ({})", path, std::strerror(err)));
  }
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
