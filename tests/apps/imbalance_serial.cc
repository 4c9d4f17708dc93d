// imbalance_serial [n]: serial work before, between and after two parallel regions, for the
// analysis of the serial parts:
//   serial 1 (n/4 elements) -> region 1, balanced (n elements, uniform cost)
//   -> serial 2 (n/4) -> region 2, imbalanced (n elements, cost growing with the index, static
//   schedule: the last thread gets the most) -> serial 3 (n/4).
// Prints a checksum independent of the thread count.
#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

// `rounds` rounds of hashing: the cost of one element.
std::uint64_t element(std::int64_t i, int rounds) {
  std::uint64_t x = static_cast<std::uint64_t>(i);
  for (int round = 0; round < rounds; ++round) x = apps::mix(x);
  return x;
}

constexpr int kRounds = 16;

std::uint64_t serial(std::int64_t begin, std::int64_t end) {
  std::uint64_t sum = 0;
  for (std::int64_t i = begin; i < end; ++i) sum += element(i, kRounds);
  return sum;
}

std::uint64_t balanced(std::int64_t n) {
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) sum += element(i, kRounds);
  return sum;
}

// Element i costs 1 + 2 * kRounds * i / n rounds: on average kRounds, like the balanced region.
std::uint64_t imbalanced(std::int64_t n) {
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) {
    sum += element(i, 1 + static_cast<int>(2 * kRounds * i / n));
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 2'000'000));
  std::uint64_t sum = serial(0, n / 4);
  sum += balanced(n);
  sum += serial(n / 4, n / 2);
  sum += imbalanced(n);
  sum += serial(n / 2, 3 * n / 4);
  std::printf("imbalance_serial %lld: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(sum));
  return 0;
}
