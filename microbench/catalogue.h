#pragma once
// The constructs ompbench measures: one entry per construct, with its suite, a one-line
// description (what `ompbench list` prints), its parameter and the methods that apply.
//
// This file is the contract between the methods (direct.h, epcc.h), the worker and the driver:
// a name here must be measurable by every method the entry claims.

#include <string>
#include <string_view>
#include <vector>

namespace ompscale::microbench {

/// Loop iterations per thread of the loop constructs, in both methods (EPCC schedbench uses 1024;
/// 128 keeps a batch short while chunk 16 still yields 8 chunks per thread). EPCC output
/// imported with another count is flagged.
inline constexpr int kIterationsPerThread = 128;

enum class Suite { kSync, kSched, kData, kTask };
enum class Method { kDirect, kEpcc };

const char* to_string(Suite suite);
const char* to_string(Method method);

struct ConstructInfo {
  std::string_view name;  // e.g. "barrier", "for_dynamic_nonmonotonic"
  Suite suite;
  std::string_view description;  // one line
  /// Name of the construct's parameter ("chunk", "array_size"); empty when it has none.
  std::string_view param;
  /// Values measured when the user gives none (e.g. chunk 16, as in the paper).
  std::vector<std::string> default_values;
  bool direct = false;  // the direct method applies
  bool epcc = true;     // the EPCC method applies
};

/// Every construct, in the order `ompbench list` prints them.
const std::vector<ConstructInfo>& catalogue();

/// The construct called `name`, or nullptr.
const ConstructInfo* find_construct(std::string_view name);

/// Parses a suite name ("sync", "sched", "data", "task"); false when unknown.
bool parse_suite(std::string_view text, Suite& suite);

}  // namespace ompscale::microbench
