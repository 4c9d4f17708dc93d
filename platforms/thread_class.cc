#include "platforms/thread_class.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <climits>
#include <cstdint>
#include <set>
#include <utility>

#include "common/error.h"
#include "common/text.h"

namespace ompscale::platforms {

namespace {

// Every spec error ends with the accepted forms, so one message is enough to fix the input.
constexpr std::string_view kAcceptedForms =
    "accepted: po2, even, odd, 8x, linear, NAME=T1,T2,... (explicit thread counts) or "
    "NAME=OFFSET+STEPk (thread counts OFFSET + STEP*k for k >= 0), with positive integers";

[[noreturn]] void throw_bad_spec(std::string_view spec, std::string_view cause) {
  throw UsageError(fmt::format("bad thread class '{}': {}; {}", spec, cause, kAcceptedForms));
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::ranges::transform(lower, lower.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// "all" and "other" are the modeler's names for "not split" and "in no class"; a user class with
// one of those names, or a built-in name, would make results ambiguous.
bool is_reserved_name(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kReserved = {"po2",    "even", "odd",  "8x",
                                                                "linear", "all",  "other"};
  return std::ranges::find(kReserved, lowercase(name)) != kReserved.end();
}

// User names end up in file names and table headers: keep them to a portable alphabet.
void check_user_name(std::string_view spec, std::string_view name) {
  if (name.empty()) throw_bad_spec(spec, "the class name before '=' is empty");
  const bool portable = std::ranges::all_of(name, [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '-' || c == '.';
  });
  if (!portable) {
    throw_bad_spec(
        spec, fmt::format("class name '{}' may only use letters, digits, '_', '-', '.'", name));
  }
  if (is_reserved_name(name)) {
    throw_bad_spec(spec, fmt::format("class name '{}' is reserved", name));
  }
}

int parse_positive(std::string_view spec, std::string_view what, std::string_view text) {
  text = trim(text);
  if (const std::optional<long long> value = parse_integer(text, 1, INT_MAX))
    return static_cast<int>(*value);
  switch (*integer_fault(text, 1, INT_MAX)) {
    case IntegerFault::kNotAnInteger:
      throw_bad_spec(spec, fmt::format("{} '{}' is not an integer", what, text));
    case IntegerFault::kTooLarge:
      throw_bad_spec(spec, fmt::format("{} '{}' is too large", what, text));
    case IntegerFault::kTooSmall:
      break;
  }
  throw_bad_spec(spec, fmt::format("{} {} is not positive", what, text));
}

constexpr std::string_view kThreadCountForms =
    "expected a list like 1,2,4, a range like 1-64, or po2, odd, even, 8x, linear, all";

}  // namespace

ThreadClass ThreadClass::po2() {
  return ThreadClass("po2", Kind::kPowerOfTwo);
}
ThreadClass ThreadClass::even() {
  return ThreadClass("even", Kind::kEven);
}
ThreadClass ThreadClass::odd() {
  return ThreadClass("odd", Kind::kOdd);
}
ThreadClass ThreadClass::multiple_of_8() {
  return ThreadClass("8x", Kind::kMultipleOf8);
}
ThreadClass ThreadClass::linear() {
  return ThreadClass("linear", Kind::kLinear);
}

ThreadClass ThreadClass::list(std::string name, std::vector<int> thread_counts) {
  const std::string spec = fmt::format("{}={}", name, fmt::join(thread_counts, ","));
  check_user_name(spec, name);
  if (thread_counts.empty()) throw_bad_spec(spec, "the list of thread counts is empty");
  for (int t : thread_counts) {
    if (t <= 0) throw_bad_spec(spec, fmt::format("thread count {} is not positive", t));
  }
  // Sorted and unique, so thread_counts() and spec() are canonical whatever the input order.
  // Iterator forms: clang 14 cannot compile libstdc++ 12's ranges::subrange (the fuzz build).
  std::sort(thread_counts.begin(), thread_counts.end());
  thread_counts.erase(std::unique(thread_counts.begin(), thread_counts.end()), thread_counts.end());
  ThreadClass result(std::move(name), Kind::kList);
  result.list_ = std::move(thread_counts);
  return result;
}

ThreadClass ThreadClass::arithmetic(std::string name, int offset, int step) {
  const std::string spec = fmt::format("{}={}+{}k", name, offset, step);
  check_user_name(spec, name);
  if (offset <= 0) throw_bad_spec(spec, fmt::format("offset {} is not positive", offset));
  if (step <= 0) throw_bad_spec(spec, fmt::format("step {} is not positive", step));
  ThreadClass result(std::move(name), Kind::kArithmetic);
  result.offset_ = offset;
  result.step_ = step;
  return result;
}

ThreadClass ThreadClass::parse(std::string_view spec) {
  const std::string_view trimmed = trim(spec);
  const std::size_t equals = trimmed.find('=');
  if (equals == std::string_view::npos) {
    const std::string lower = lowercase(trimmed);
    if (lower == "po2") return po2();
    if (lower == "even") return even();
    if (lower == "odd") return odd();
    if (lower == "8x") return multiple_of_8();
    if (lower == "linear") return linear();
    throw_bad_spec(spec, trimmed.empty() ? "empty specification" : "unknown class");
  }

  const std::string name(trim(trimmed.substr(0, equals)));
  check_user_name(spec, name);
  const std::string_view rule = trim(trimmed.substr(equals + 1));
  if (rule.empty()) throw_bad_spec(spec, "nothing after '='");

  // "OFFSET+STEPk" is the only form with a '+'; anything else after '=' must be a list.
  const std::size_t plus = rule.find('+');
  if (plus != std::string_view::npos) {
    std::string_view step_text = trim(rule.substr(plus + 1));
    if (step_text.empty() || (step_text.back() != 'k' && step_text.back() != 'K')) {
      throw_bad_spec(spec, "an arithmetic rule must end in 'k', as in 12+24k");
    }
    step_text.remove_suffix(1);
    const int offset = parse_positive(spec, "offset", rule.substr(0, plus));
    const int step = parse_positive(spec, "step", step_text);
    return arithmetic(name, offset, step);
  }

  std::vector<int> thread_counts;
  std::string_view rest = rule;
  while (true) {
    const std::size_t comma = rest.find(',');
    thread_counts.push_back(parse_positive(spec, "thread count", rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return list(name, std::move(thread_counts));
}

bool ThreadClass::contains(int t) const {
  if (t < 1) return false;
  const bool power_of_two = std::has_single_bit(static_cast<unsigned>(t));
  switch (kind_) {
    case Kind::kPowerOfTwo:
      return power_of_two;
    case Kind::kEven:
      return t % 16 == 0 && !power_of_two;
    case Kind::kOdd:
      return t % 16 == 8 && !power_of_two;
    case Kind::kMultipleOf8:
      return t % 8 == 0;
    case Kind::kLinear:
      return true;
    case Kind::kList:
      return std::ranges::binary_search(list_, t);
    case Kind::kArithmetic:
      return t >= offset_ && (t - offset_) % step_ == 0;
  }
  return false;
}

std::vector<int> ThreadClass::thread_counts(int max_threads) const {
  std::vector<int> counts;
  if (max_threads < 1) return counts;
  // Step through candidates in 64 bits so that max_threads near INT_MAX cannot overflow.
  const auto add_progression = [&](std::int64_t first, std::int64_t step) {
    for (std::int64_t t = first; t <= max_threads; t += step) {
      if (contains(static_cast<int>(t))) counts.push_back(static_cast<int>(t));
    }
  };
  switch (kind_) {
    case Kind::kPowerOfTwo:
      for (std::int64_t t = 1; t <= max_threads; t *= 2) counts.push_back(static_cast<int>(t));
      break;
    case Kind::kEven:
      add_progression(16, 16);
      break;
    case Kind::kOdd:
      add_progression(8, 16);
      break;
    case Kind::kMultipleOf8:
      add_progression(8, 8);
      break;
    case Kind::kLinear:
      add_progression(1, 1);
      break;
    case Kind::kList:
      for (int t : list_) {
        if (t <= max_threads) counts.push_back(t);
      }
      break;
    case Kind::kArithmetic:
      add_progression(offset_, step_);
      break;
  }
  return counts;
}

std::string ThreadClass::spec() const {
  switch (kind_) {
    case Kind::kList:
      return fmt::format("{}={}", name_, fmt::join(list_, ","));
    case Kind::kArithmetic:
      return fmt::format("{}={}+{}k", name_, offset_, step_);
    default:
      return name_;  // the built-in names are their own spec
  }
}

std::optional<std::string> classify(int t, const std::vector<ThreadClass>& classes) {
  for (const ThreadClass& thread_class : classes) {
    if (thread_class.contains(t)) return thread_class.name();
  }
  return std::nullopt;
}

std::vector<ThreadClass> paper_partition() {
  return {ThreadClass::po2(), ThreadClass::even(), ThreadClass::odd()};
}

std::vector<int> parse_thread_counts(const std::string& spec, int max_threads,
                                     std::string_view option) {
  std::set<int> counts;
  for (const std::string& item : split(spec, ',')) {
    if (item.empty())
      throw UsageError(fmt::format("{} '{}': empty item; {}", option, spec, kThreadCountForms));
    // Bounds come before expansion: a range up to 2^31 would take seconds and gigabytes to
    // expand before any caller could refuse it.
    const auto check_bound = [&](long long count) {
      if (count > kMaxThreadCount)
        throw UsageError(fmt::format("{} '{}': {} threads is more than the {} any team can have",
                                     option, spec, count, kMaxThreadCount));
    };
    if (const std::optional<long long> count = parse_integer(item, LLONG_MIN, LLONG_MAX)) {
      if (*count < 1)
        throw UsageError(fmt::format("{} '{}': {} is not a thread count; thread counts start at 1",
                                     option, spec, item));
      check_bound(*count);
      counts.insert(static_cast<int>(*count));
      continue;
    }
    if (const std::size_t dash = item.find('-'); dash != std::string::npos) {
      const std::optional<long long> low = parse_integer(item.substr(0, dash), 1, LLONG_MAX);
      const std::optional<long long> high = parse_integer(item.substr(dash + 1), 1, LLONG_MAX);
      if (!low || !high || *high < *low)
        throw UsageError(
            fmt::format("{} '{}': bad range '{}'; {}", option, spec, item, kThreadCountForms));
      check_bound(*high);
      for (auto t = static_cast<int>(*low); t <= *high; ++t) counts.insert(t);
      continue;
    }
    if (item == "all") {
      for (int t = 1; t <= max_threads; ++t) counts.insert(t);
      continue;
    }
    try {
      for (int t : ThreadClass::parse(item).thread_counts(max_threads)) counts.insert(t);
    } catch (const UsageError&) {
      throw UsageError(
          fmt::format("{} '{}': unknown item '{}'; {}", option, spec, item, kThreadCountForms));
    }
  }
  if (counts.empty())
    throw UsageError(
        fmt::format("{} '{}' names no thread count up to {}", option, spec, max_threads));
  return {counts.begin(), counts.end()};
}

}  // namespace ompscale::platforms
