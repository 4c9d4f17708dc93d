#pragma once
// Thread-count classes of the "too many threads" paper (Iwainsky et al., Euro-Par 2015), section
// 4.2: runtimes often behave differently on powers of two than on other thread counts, so models
// are built per class.
//   PO2    t = 2^x
//   EVEN   t = 16x, not a power of two
//   ODD    t = 16x + 8, not a power of two
//   8X     multiples of 8 (a sweep set; overlaps the classes above)
//   LINEAR every t from 1 to a maximum (a sweep set)
// plus user-defined classes: an explicit list ("mine=3,5,7") or an arithmetic rule
// ("mine=12+24k": t = 12 + 24k for k >= 0).

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ompscale::platforms {

class ThreadClass {
 public:
  enum class Kind { kPowerOfTwo, kEven, kOdd, kMultipleOf8, kLinear, kList, kArithmetic };

  static ThreadClass po2();
  static ThreadClass even();
  static ThreadClass odd();
  static ThreadClass multiple_of_8();
  static ThreadClass linear();
  /// User classes. Names use letters, digits, '_', '-', '.' and may not be a built-in name,
  /// "all" or "other"; thread counts, offset and step must be positive. Throws UsageError.
  static ThreadClass list(std::string name, std::vector<int> thread_counts);
  static ThreadClass arithmetic(std::string name, int offset, int step);

  /// Parses "po2", "even", "odd", "8x", "linear" (case-insensitive), "NAME=3,5,7" or
  /// "NAME=OFFSET+STEPk". Throws UsageError with the accepted forms otherwise.
  static ThreadClass parse(std::string_view spec);

  /// "po2", "even", "odd", "8x", "linear" for the built-ins; the user's name otherwise.
  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  /// True when t (>= 1) belongs to the class.
  bool contains(int t) const;
  /// The class's thread counts from 1 to `max_threads`, ascending.
  std::vector<int> thread_counts(int max_threads) const;
  /// Textual form accepted by parse().
  std::string spec() const;

  /// Same name and same members; parse(c.spec()) == c for every class c.
  bool operator==(const ThreadClass&) const = default;

 private:
  ThreadClass(std::string name, Kind kind) : name_(std::move(name)), kind_(kind) {}
  std::string name_;
  Kind kind_;
  std::vector<int> list_;
  int offset_ = 0;
  int step_ = 1;
};

/// The first class in `classes` that contains t, or nullopt. Order expresses precedence: with
/// {po2, even, odd} a power of two is PO2 even when it is also a multiple of 16.
std::optional<std::string> classify(int t, const std::vector<ThreadClass>& classes);

/// The partition of the paper: PO2, EVEN, ODD; thread counts in none of them form "other".
std::vector<ThreadClass> paper_partition();

/// The largest thread count a spec may name, far beyond any machine's team: larger counts and
/// ranges are refused before they are expanded.
inline constexpr int kMaxThreadCount = 65536;

/// The thread counts a command-line spec names, ascending and unique: a list ("1,2,4"), a range
/// ("1-64"), "all" (1 to `max_threads`), a class name (parse(): "po2", "odd", "8x", ...) expanded
/// up to `max_threads`, or a mix ("1,po2"). Explicit counts and ranges are kept even above
/// `max_threads` (the caller decides about oversubscription), up to kMaxThreadCount. Throws
/// UsageError starting with `option` (e.g. "--threads") and the spec, naming the accepted forms.
std::vector<int> parse_thread_counts(const std::string& spec, int max_threads,
                                     std::string_view option);

}  // namespace ompscale::platforms
