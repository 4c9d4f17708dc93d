#pragma once
// The command line of a benchmark program: "--flag value" pairs and --help. A benchmark must not
// start measuring (minutes, sometimes) when it was only asked what it does.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/text.h"

namespace ompscale::bench {

/// The "--flag value" pairs of argv, in order. --help or -h anywhere prints `usage` to stdout and
/// exits 0; a flag not in `flags`, or one without a value, prints the problem and the usage to
/// stderr and exits 2.
inline std::vector<std::pair<std::string, std::string>> options(
    int argc, char** argv, std::string_view usage, std::initializer_list<std::string_view> flags) {
  const std::string program = argc > 0 ? argv[0] : "bench";
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::printf("%.*s", static_cast<int>(usage.size()), usage.data());
      std::exit(0);
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    const char* problem = nullptr;
    if (std::find(flags.begin(), flags.end(), flag) == flags.end()) {
      problem = "unknown option";
    } else if (i + 1 >= argc) {
      problem = "no value for";
    }
    if (problem != nullptr) {
      std::fprintf(stderr, "%s: %s %s\n%.*s", program.c_str(), problem, argv[i],
                   static_cast<int>(usage.size()), usage.data());
      std::exit(2);
    }
    out.emplace_back(argv[i], argv[i + 1]);
  }
  return out;
}

/// The value of `flag` as a whole number in [min, max] (common/text.h's syntax); otherwise prints
/// "FLAG 'VALUE': expected a whole number from MIN to MAX" to stderr and exits 2.
inline long long integer_value(std::string_view flag, const std::string& value, long long min,
                               long long max) {
  if (const std::optional<long long> n = parse_integer(value, min, max)) return *n;
  std::fprintf(stderr, "%.*s '%s': expected a whole number from %lld to %lld\n",
               static_cast<int>(flag.size()), flag.data(), value.c_str(), min, max);
  std::exit(2);
}

/// The value of `flag` as a finite number in [min, max]; otherwise prints
/// "FLAG 'VALUE': expected a number from MIN to MAX" to stderr and exits 2.
inline double number_value(std::string_view flag, const std::string& value, double min,
                           double max) {
  const std::optional<double> x = parse_double(value);
  if (x && std::isfinite(*x) && *x >= min && *x <= max) return *x;
  std::fprintf(stderr, "%.*s '%s': expected a number from %g to %g\n",
               static_cast<int>(flag.size()), flag.data(), value.c_str(), min, max);
  std::exit(2);
}

}  // namespace ompscale::bench
