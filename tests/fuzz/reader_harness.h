#pragma once
// What the reader harnesses share: the fuzzer's bytes are the file content, and an InputError is
// the expected answer to bad content. Any other exception escapes to libFuzzer and is a finding,
// as are crashes and sanitizer reports.
//
// Each harness runs briefly in CTest (NAME_smoke, from tests/fuzz/corpus/NAME). A long run, from
// the build directory (what it finds goes into the first directory, not into the sources):
//   mkdir -p fuzz-NAME && build/tests/NAME -max_total_time=600 fuzz-NAME tests/fuzz/corpus/NAME

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.h"

namespace ompscale::fuzz {

/// Calls `read(content)` with the bytes as a string; an InputError (or `Expected`) is swallowed.
template <typename Expected = InputError, typename Read>
void read_content(const std::uint8_t* data, std::size_t size, Read read) {
  const std::string content(reinterpret_cast<const char*>(data), size);
  try {
    read(content);
  } catch (const Expected&) {
  }
}

}  // namespace ompscale::fuzz
