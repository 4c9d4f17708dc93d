#include "microbench/driver/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <set>

#include "common/error.h"
#include "common/text.h"
#include "platforms/thread_class.h"

namespace ompscale::microbench {

namespace {

bool parse_positive(std::string_view text, int& value) {
  const auto parsed = parse_integer(text, 1, INT_MAX);
  if (parsed) value = static_cast<int>(*parsed);
  return parsed.has_value();
}

std::vector<std::string> expand_binds(const std::vector<std::string>& binds) {
  static const std::vector<std::string> kBinds = {"spread", "close", "master", "false"};
  std::vector<std::string> out;
  for (const std::string& bind : binds) {
    if (bind == "all") {
      for (const std::string& b : kBinds)
        if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    } else if (std::find(kBinds.begin(), kBinds.end(), bind) != kBinds.end()) {
      if (std::find(out.begin(), out.end(), bind) == out.end()) out.push_back(bind);
    } else {
      throw UsageError(fmt::format(
          "--bind: '{}' is not a binding; expected spread, close, master, false or all", bind));
    }
  }
  return out;
}

}  // namespace

Plan make_plan(const RunOptions& options, bool llvm_available, int hardware_threads) {
  Plan plan;
  const int max_threads = options.max_threads > 0 ? options.max_threads : hardware_threads;
  plan.thread_counts = platforms::parse_thread_counts(options.threads, max_threads, "--threads");
  if (!options.oversubscribe && plan.thread_counts.back() > hardware_threads)
    throw UsageError(
        fmt::format("--threads: {} threads exceed the {} hardware threads of this machine; pass "
                    "--oversubscribe to measure anyway (rows are marked oversubscribed)",
                    plan.thread_counts.back(), hardware_threads));

  // Runtimes.
  std::vector<std::string> runtimes;
  const std::string runtime = options.runtime.empty() ? "both" : options.runtime;
  if (runtime == "gnu") {
    runtimes = {"gnu"};
  } else if (runtime == "llvm" || runtime == "both") {
    if (!llvm_available && (runtime == "llvm" || !options.runtime.empty()))
      throw UsageError(
          "--runtime " + runtime +
          ": the clang + libomp worker (ompbench-worker-llvm) was not built; install clang and "
          "libomp-dev and rebuild, or use --runtime gnu");
    runtimes = runtime == "llvm" ? std::vector<std::string>{"llvm"}
               : llvm_available  ? std::vector<std::string>{"gnu", "llvm"}
                                 : std::vector<std::string>{"gnu"};
  } else {
    throw UsageError("--runtime: '" + runtime + "' is not a runtime; expected gnu, llvm or both");
  }

  // Settings.
  for (const std::string& place : options.places)
    if (place != "cores" && place != "threads" && place != "sockets")
      throw UsageError("--places: '" + place +
                       "' is not a place kind; expected cores, threads or sockets");
  for (const std::string& r : runtimes)
    for (const std::string& bind : expand_binds(options.binds)) {
      if (bind == "false") {
        plan.settings.push_back({r, bind, ""});
        continue;
      }
      for (const std::string& place : options.places) plan.settings.push_back({r, bind, place});
    }

  // Constructs.
  std::vector<const ConstructInfo*> constructs;
  if (!options.constructs.empty()) {
    for (const std::string& name : options.constructs) {
      const ConstructInfo* c = find_construct(name);
      if (c == nullptr)
        throw UsageError("--construct: unknown construct '" + name +
                         "'; `ompbench list` shows them all");
      if (std::find(constructs.begin(), constructs.end(), c) == constructs.end())
        constructs.push_back(c);
    }
  } else {
    std::vector<std::string> suites =
        options.suites.empty() ? std::vector<std::string>{"sync"} : options.suites;
    std::set<Suite> wanted;
    for (const std::string& name : suites) {
      Suite suite;
      if (name == "all") {
        wanted.insert({Suite::kSync, Suite::kSched, Suite::kData, Suite::kTask});
      } else if (parse_suite(name, suite)) {
        wanted.insert(suite);
      } else {
        throw UsageError("--suite: unknown suite '" + name +
                         "'; expected sync, sched, data, task or all");
      }
    }
    for (const ConstructInfo& c : catalogue())
      if (wanted.count(c.suite) != 0) constructs.push_back(&c);
  }

  // Methods per construct.
  if (options.method != "auto" && options.method != "direct" && options.method != "epcc" &&
      options.method != "both")
    throw UsageError("--method: '" + options.method +
                     "' is not a method; expected auto, direct, epcc or both");
  for (std::size_t s = 0; s < plan.settings.size(); ++s)
    for (const ConstructInfo* c : constructs) {
      std::vector<Method> methods;
      if (options.method == "auto") {
        methods.push_back(c->direct ? Method::kDirect : Method::kEpcc);
      } else if (options.method == "both") {
        if (c->direct) methods.push_back(Method::kDirect);
        if (c->epcc) methods.push_back(Method::kEpcc);
      } else {
        const Method m = options.method == "direct" ? Method::kDirect : Method::kEpcc;
        if ((m == Method::kDirect && !c->direct) || (m == Method::kEpcc && !c->epcc)) {
          if (!options.constructs.empty())
            throw UsageError(
                fmt::format("--method {}: does not apply to {}", options.method, c->name));
          continue;  // suite selection: skip constructs the method does not cover
        }
        methods.push_back(m);
      }
      std::vector<std::string> values = {""};
      if (c->param == "chunk") values = options.chunks.empty() ? c->default_values : options.chunks;
      if (c->param == "array_size")
        values = options.array_sizes.empty() ? c->default_values : options.array_sizes;
      for (const std::string& v : values) {
        int number = 0;
        if (!c->param.empty() && !parse_positive(v, number))
          throw UsageError(fmt::format("--{}: '{}' is not a positive integer",
                                       c->param == "chunk" ? "chunk" : "array-size", v));
      }
      for (Method m : methods)
        for (const std::string& v : values)
          for (int t : plan.thread_counts)
            plan.configs.push_back({static_cast<int>(s), c, m, v, t, t > hardware_threads});
    }
  return plan;
}

std::string config_key(const std::string& construct, const std::string& method,
                       const std::string& threads, const std::string& bind,
                       const std::string& places, const std::string& runtime,
                       const std::string& param_value) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", construct, method, threads, bind,
                     places, runtime, param_value);
}

}  // namespace ompscale::microbench
