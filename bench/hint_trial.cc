// Hints followed as a user would follow them (issue 26): for each application, `ompscan run`
// (threads 1 and --threads, --scan-reps repetitions) and `ompscan report --format json`, then
// every top hint that can be followed without editing code by hand is followed, and the program
// is run with and without it, alternating (--reps pairs, more when needed: below). Printed per
// hint: what the report predicted, what following it gained (medians), the runs' spread, the
// pairs run, and the verdict:
//
//   ok        the gain realised is within 25% of the predicted one;
//   holds     the hint said no change pays, and following its best rejected change gained
//             nothing beyond the runs' spread (or made the program slower, as the hint said);
//   MISSED    otherwise; SLOWER when following a change the hint advised made the program
//             slower by more than the runs' spread.
//
// Followed: schedule hints (the report's "loops": the loop's pragma gets schedule(runtime) in a
// copy of the source, built like the original, and OMP_SCHEDULE sets the schedule; loops that
// are schedule(runtime) already need only OMP_SCHEDULE), and runtime settings of GCC builds
// (OMP_WAIT_POLICY, GOMP_SPINCOUNT, libomp through a libgomp.so.1 link). A GCC build's
// imbalance hints the report could not price (static loops call no runtime function) are
// followed as the report advises: a schedule(runtime) build of the region's static loops is
// scanned with OMP_SCHEDULE=static, and the hints its report prices are followed on the
// original program. Others (locks, serial code, tasks) need a change of the code and are listed
// as such.
//
//   build/bench/hint_trial [--reps 5] [--max-reps 41] [--scan-reps 3] [--threads 2]
//                          [--apps all|a,b] [--lulesh DIR] [--out DIR] [--withheld no|yes]
//
// --reps: the runs with and without each hint at first; then more pairs, up to --max-reps and
// a minute of runs per hint, while the realised gain's standard error (from the runs' robust
// spread) is above an eighth of the prediction: the 25% band is then about two standard errors
// wide either side. A short program moves by more than that from run to run.
//
// --lulesh DIR: LULESH's sources at the pinned commit (bench/real_apps.sh build exports them to
// build/real-apps/src/lulesh), built here with GCC and clang at -O3 as real_apps.sh does.
// --withheld yes: also follow the schedule hints the report withheld because every run at the
// thread count was time-shared (a check of the trial's own machinery on a busy machine: their
// predictions include waiting for a CPU, so their verdicts are printed, marked, and not counted).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "common/child_process.h"
#include "common/library_shim.h"
#include "common/statistics.h"
#include "common/temporary_directory.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kUsage =
    "hint_trial: follows ompscan report's top hints and prints predicted against realised gain.\n"
    "Usage: build/bench/hint_trial [--reps 5] [--max-reps 41] [--scan-reps 3] [--threads 2]\n"
    "                              [--apps all|a,b] [--lulesh DIR] [--out DIR]\n"
    "                              [--withheld no|yes]\n";

struct Options {
  int reps = 5;
  int max_reps = 41;
  int scan_reps = 3;
  int threads = 2;
  std::string apps = "all";
  std::string lulesh;
  fs::path out;
  bool withheld = false;
};

// One application as built: its sources, how to compile them, and its arguments.
struct Case {
  std::string name;
  std::string compiler;  // g++ or clang++
  std::vector<fs::path> sources;
  std::vector<std::string> flags;
  std::vector<std::string> args;
};

// `name` found on PATH ("g++" -> "/usr/bin/g++"), or `name` itself.
std::string on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir) / name;
    std::error_code error;
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  }
  return name;
}

ompscale::CapturedRun run(const std::vector<std::string>& argv,
                          const std::vector<std::string>& set_env = {},
                          const std::vector<std::string>& unset_env = {}) {
  ompscale::ChildOptions options;
  options.argv = argv;
  options.environment = ompscale::environment_with(set_env, unset_env);
  options.stdout_to = ompscale::ChildStream::pipe();
  options.stderr_to = ompscale::ChildStream::pipe();
  options.ends_with_parent = true;  // a trial stopped with SIGTERM leaves nothing running
  return ompscale::run_captured(options);
}

// Builds `c` (its sources possibly patched) into `binary`; false with the compiler's words.
bool build(const Case& c, const std::vector<fs::path>& sources, const fs::path& binary,
           std::string& error) {
  std::vector<std::string> argv = {on_path(c.compiler)};
  argv.insert(argv.end(), c.flags.begin(), c.flags.end());
  for (const fs::path& s : sources) argv.push_back(s.string());
  argv.insert(argv.end(), {"-o", binary.string()});
  const ompscale::CapturedRun r = run(argv);
  error = r.err;
  return r.status.shell_code() == 0;
}

// A source file as its lines (none when it cannot be read).
std::vector<std::string> source_lines(const fs::path& source) {
  std::ifstream in(source);
  std::vector<std::string> text;
  for (std::string line; std::getline(in, line);) text.push_back(line);
  return text;
}

// Whether a line is an OpenMP pragma with a `for` (a worksharing loop, combined or not).
bool is_for_pragma(const std::string& line) {
  static const std::regex for_pragma(R"(^\s*#\s*pragma\s+omp\b.*\bfor\b)");
  return std::regex_search(line, for_pragma);
}

// A copy of the sources in `dir` whose loops at `lines` (file name -> lines) have
// schedule(runtime): the nearest "#pragma omp ... for" at or above each line loses its schedule
// clause and gains schedule(runtime).
std::vector<fs::path> runtime_schedule_sources(const Case& c,
                                               const std::map<std::string, std::vector<int>>& lines,
                                               const fs::path& dir, int& patched) {
  fs::create_directories(dir);
  std::vector<fs::path> out;
  patched = 0;
  for (const fs::path& source : c.sources) {
    std::vector<std::string> text = source_lines(source);
    const auto it = lines.find(source.filename().string());
    for (int line : it == lines.end() ? std::vector<int>{} : it->second) {
      for (int at = std::min<int>(line, static_cast<int>(text.size())); at >= 1 && at > line - 8;
           --at) {
        std::string& l = text[static_cast<std::size_t>(at - 1)];
        if (!is_for_pragma(l)) continue;
        if (l.find("schedule(runtime)") != std::string::npos) break;
        if (const std::size_t s = l.find("schedule("); s != std::string::npos) {
          l.erase(s, l.find(')', s) - s + 1);
        }
        l += " schedule(runtime)";
        ++patched;
        break;
      }
    }
    const fs::path copy = dir / source.filename();
    std::ofstream o(copy);
    for (const std::string& l : text) o << l << '\n';
    out.push_back(copy);
  }
  return out;
}

// Wall seconds of one run of `argv` with `env` set.
double seconds(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  const auto start = std::chrono::steady_clock::now();
  const ompscale::CapturedRun r = run(argv, env, {"OMP_SCHEDULE"});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.status.shell_code() != 0) {
    std::fprintf(stderr, "hint_trial: %s failed: %s\n", argv[0].c_str(), r.err.c_str());
    return -1;
  }
  return s;
}

struct Trial {
  std::string app, hint, how;
  double predicted = 0;
  bool nothing_pays = false;
  bool withheld = false;  // the report withheld the hint (time-shared runs): no verdict counted
  double base = 0, followed = 0, spread = 0;
  int pairs = 0;  // runs with and without the hint
  std::string verdict;
};

// Seconds the runs of one hint may take beyond its first `--reps` pairs.
constexpr double kMoreRunsBudget = 60.0;

// The standard error of the difference of the medians of `a` and `b`, from their robust spreads.
double median_difference_error(const std::vector<double>& a, const std::vector<double>& b) {
  using namespace ompscale::stats;
  return std::hypot(median_standard_error(robust_stddev(a), a.size()),
                    median_standard_error(robust_stddev(b), b.size()));
}

// Whether the realised gain of `t`, measured by `a` and `b`, is known well enough to judge it:
// its standard error within half the 25% band around the prediction. A hint that nothing pays
// is judged against the runs' spread, which more runs do not narrow.
bool precise_enough(const Trial& t, const std::vector<double>& a, const std::vector<double>& b) {
  if (t.nothing_pays || !(std::abs(t.predicted) > 0.0)) return true;
  return median_difference_error(a, b) <= 0.125 * std::abs(t.predicted);
}

// Runs base and followed alternately, `o.reps` each, then more pairs (up to `o.max_reps`, and
// kMoreRunsBudget seconds) while the realised gain is not known well enough to judge the
// prediction (a program of a tenth of a second moves by more than a quarter of a 20 ms gain
// from run to run), and judges the hint.
void measure(Trial& t, const std::vector<std::string>& base,
             const std::vector<std::string>& env_base, const std::vector<std::string>& followed,
             const std::vector<std::string>& env_followed, const Options& o) {
  std::vector<double> a, b;
  double more_runs_s = 0.0;
  for (int r = 0; r < o.max_reps; ++r) {
    if (r >= o.reps && (precise_enough(t, a, b) || more_runs_s > kMoreRunsBudget)) break;
    if (r % 2 == 0) {
      a.push_back(seconds(base, env_base));
      b.push_back(seconds(followed, env_followed));
    } else {
      b.push_back(seconds(followed, env_followed));
      a.push_back(seconds(base, env_base));
    }
    if (r >= o.reps) more_runs_s += a.back() + b.back();
  }
  t.pairs = static_cast<int>(a.size());
  t.base = ompscale::stats::median(a);
  t.followed = ompscale::stats::median(b);
  const double spread = (ompscale::stats::max(a) - ompscale::stats::min(a)) / t.base;
  const double spread_f = (ompscale::stats::max(b) - ompscale::stats::min(b)) / t.followed;
  t.spread = std::max(spread, spread_f);
  const double realised = t.base - t.followed;
  const double noise = t.spread * t.base;
  // A hint that no change pays is followed through its best rejected change only to check it:
  // that change making the program slower is what the hint said.
  if (t.nothing_pays) {
    t.verdict = realised <= noise ? "holds" : "MISSED";
  } else if (realised < -noise) {
    t.verdict = "SLOWER";
  } else {
    t.verdict = std::abs(realised - t.predicted) <= 0.25 * std::abs(t.predicted) ? "ok" : "MISSED";
  }
}

// `ompscan run` of `binary` and its report as JSON (null when either fails). `env` is set for
// the program (OMP_SCHEDULE is otherwise unset).
json scan(const Case& c, const fs::path& binary, const Options& o, const fs::path& dir,
          const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = {OMPSCALE_OMPSCAN_BIN,
                                   "run",
                                   "--threads",
                                   "1," + std::to_string(o.threads),
                                   "--reps",
                                   std::to_string(o.scan_reps),
                                   "--progress",
                                   "never",
                                   "--force",
                                   "-o",
                                   dir.string(),
                                   "--",
                                   binary.string()};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  const ompscale::CapturedRun ran = run(argv, env, {"OMP_SCHEDULE"});  // `env` wins over unset
  if (ran.status.shell_code() != 0) {
    std::fprintf(stderr, "hint_trial: ompscan run of %s failed: %s\n", c.name.c_str(),
                 ran.err.c_str());
    return nullptr;
  }
  const ompscale::CapturedRun report =
      run({OMPSCALE_OMPSCAN_BIN, "report", dir.string(), "--format", "json"});
  json j = json::parse(report.out, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

// Hints the report withheld because their runs were time-shared (waiting for a CPU looks like
// imbalance): none of them can be followed, and a trial without them is no verdict. Printed, and
// counted.
int report_withheld(const Case& c, const json& report) {
  const std::size_t shared = report["runs"]["time_shared"].size();
  const int analysed = report["runs"].value("analysed", 0);
  int withheld = 0;
  int region_rank = 0;
  for (const json& region : report["regions"]) {
    if (region["kind"] != "parallel" || ++region_rank > 3) continue;
    withheld +=
        static_cast<int>(region["series"].back().value("withheld_hints", json::array()).size());
  }
  if (shared > 0 || withheld > 0) {
    std::printf("  %-20s %zu of %d runs time-shared; %d hint(s) of the top regions withheld\n",
                c.name.c_str(), shared, analysed, withheld);
  }
  return withheld;
}

// The runtime setting the report recommends for a GCC build, if any: one trial.
void follow_runtime_knob(const Case& c, const std::vector<std::string>& app, const json& report,
                         const Options& o, const fs::path& dir, std::vector<Trial>& trials) {
  const std::string knob = report["runtime"].value("knob", "");
  if (knob.empty()) return;
  Trial t;
  t.app = c.name;
  t.hint = "runtime setting";
  t.how = knob;
  t.predicted = report["runtime"].value("knob_gain_s", 0.0);
  std::vector<std::string> env;
  if (knob == "libomp") {
    // The libomp the report measured the GCC build on (what ompscan run loaded).
    const std::string libomp = report["runtime"].value("library", "");
    if (libomp.empty()) {
      std::fprintf(stderr, "hint_trial: %s: the report names no libomp; \"libomp\" not tried\n",
                   c.name.c_str());
      return;
    }
    ompscale::make_library_shim((dir / "shim").string(), "libgomp.so.1", libomp);
    env.push_back(ompscale::library_path_with((dir / "shim").string()));
  } else {
    env.push_back(knob);
  }
  measure(t, app, {}, app, env, o);
  trials.push_back(t);
}

// A priced imbalance hint as a trial: its loops that share the schedule gaining most, their
// predicted net gain (0 when nothing pays: its best rejected change is followed), and the lines
// of those loops that need a schedule(runtime) build.
struct ScheduleTrial {
  Trial trial;
  std::string schedule;
  std::map<std::string, std::vector<int>> lines;  // file name -> loop lines
  bool all_runtime = true;
  bool priced_by_rescan = false;  // priced by the scan of a schedule(runtime) build
};

ScheduleTrial schedule_trial(const Case& c, const json& region, const json& hint, bool withheld) {
  const json& loops = hint["loops"];
  ScheduleTrial s;
  // One OMP_SCHEDULE serves every loop it reaches: the schedule whose loops gain most together,
  // as a user would follow the largest of the hint's changes first.
  std::map<std::string, double> net_by_schedule;
  for (const json& loop : loops) net_by_schedule[loop["schedule"]] += loop["net_s"].get<double>();
  s.schedule = std::max_element(net_by_schedule.begin(), net_by_schedule.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; })
                   ->first;
  Trial& t = s.trial;
  t.app = c.name;
  t.hint = region["label"].get<std::string>().substr(0, 60);
  t.how = "OMP_SCHEDULE=" + s.schedule;
  t.nothing_pays = hint.value("nothing_pays", false);
  t.withheld = withheld;
  for (const json& loop : loops) {
    if (loop["schedule"] != s.schedule) continue;
    t.predicted += loop["net_s"].get<double>();
    s.all_runtime = s.all_runtime && loop.value("runtime_schedule", false);
    if (loop["location"].contains("file")) {
      s.lines[fs::path(loop["location"]["file"].get<std::string>()).filename().string()].push_back(
          loop["location"]["line"]);
    }
  }
  if (t.nothing_pays) t.predicted = 0;
  return s;
}

// A copy of `c` whose loops at `lines` have schedule(runtime), built into `variant`/app; its
// path, or empty (with the reason on stderr).
fs::path runtime_schedule_build(const Case& c, const std::map<std::string, std::vector<int>>& lines,
                                const fs::path& variant) {
  int patched = 0;
  const std::vector<fs::path> sources = runtime_schedule_sources(c, lines, variant, patched);
  std::string error;
  if (patched == 0 || !build(c, sources, variant / "app", error)) {
    std::fprintf(stderr, "hint_trial: %s: no schedule(runtime) build (%d loops patched) %s\n",
                 c.name.c_str(), patched, error.c_str());
    return {};
  }
  return variant / "app";
}

// Follows one schedule trial: `app` as it is against a schedule(runtime) build (unless its loops
// are schedule(runtime) already) run with OMP_SCHEDULE set to the trial's schedule.
void follow_schedule(const Case& c, const std::vector<std::string>& app, ScheduleTrial s,
                     const Options& o, const fs::path& dir, std::vector<Trial>& trials) {
  std::vector<std::string> followed = app;
  if (!s.all_runtime) {
    const fs::path built =
        runtime_schedule_build(c, s.lines, dir / ("runtime-" + std::to_string(trials.size())));
    if (built.empty()) {
      std::string where;
      for (const auto& [file, lines] : s.lines) {
        for (int line : lines)
          where += (where.empty() ? "" : ", ") + file + ":" + std::to_string(line);
      }
      std::printf(
          "  %-14s %-48.48s imbalance    not followed: no schedule(runtime) build of its "
          "loops at %s\n",
          c.name.c_str(), s.trial.hint.c_str(), where.empty() ? "no line" : where.c_str());
      return;
    }
    followed[0] = built.string();
    s.trial.how += s.priced_by_rescan ? " (schedule(runtime) build, priced by its scan)"
                                      : " (schedule(runtime) build)";
  }
  measure(s.trial, app, {}, followed, {"OMP_SCHEDULE=" + s.schedule}, o);
  trials.push_back(s.trial);
}

// The top three parallel regions of a report.
std::vector<const json*> top_regions(const json& report) {
  std::vector<const json*> out;
  for (const json& region : report["regions"]) {
    if (region["kind"] == "parallel" && out.size() < 3) out.push_back(&region);
  }
  return out;
}

// Where a region's static loops are written: the region's own line when it is a combined
// `parallel for`, else the `omp for` pragmas in its body (the braces after the region's pragma,
// or the one statement when there are none), leaving out loops with a schedule the program can
// already balance or choose at run time (dynamic, guided, auto, runtime). Empty when the source
// cannot be read.
std::vector<int> static_loop_lines(const fs::path& source, int region_line) {
  const std::vector<std::string> text = source_lines(source);
  if (region_line < 1 || region_line > static_cast<int>(text.size())) return {};
  static const std::regex chosen(
      R"(\bschedule\s*\(\s*(\w+\s*(,\s*\w+\s*)?:\s*)?(dynamic|guided|auto|runtime)\b)");
  const auto static_for = [&](const std::string& l) {
    return is_for_pragma(l) && !std::regex_search(l, chosen);
  };
  const std::string& region = text[static_cast<std::size_t>(region_line - 1)];
  if (is_for_pragma(region)) {
    return static_for(region) ? std::vector<int>{region_line} : std::vector<int>{};
  }
  std::vector<int> out;
  int depth = 0, parentheses = 0;
  bool opened = false;
  for (std::size_t i = static_cast<std::size_t>(region_line); i < text.size(); ++i) {
    const std::string& l = text[i];
    if (static_for(l)) out.push_back(static_cast<int>(i) + 1);
    if (!opened && is_for_pragma(l)) break;          // a body of one worksharing loop
    if (l.find('#') != std::string::npos) continue;  // other pragmas hold no braces
    for (char ch : l) {
      if (ch == '(') ++parentheses;
      if (ch == ')') --parentheses;
      if (ch == '{') ++depth, opened = true;
      if (ch == '}') --depth;
      if (!opened && ch == ';' && parentheses == 0) return out;  // a body of one statement
    }
    if (opened && depth <= 0) break;
  }
  return out;
}

// A region's hints in its last series, each with whether the report withheld it (time-shared
// runs); the withheld ones only with --withheld yes.
std::vector<std::pair<json, bool>> hints_of(const json& region, const Options& o) {
  const json& series = region["series"].back();
  std::vector<std::pair<json, bool>> hints;
  for (const json& h : series.value("hints", json::array())) hints.emplace_back(h, false);
  if (o.withheld) {
    for (const json& h : series.value("withheld_hints", json::array())) hints.emplace_back(h, true);
  }
  return hints;
}

// The same region in the report of a patched copy: the parallel region at the same line of a
// file of the same name (the copy's sources live in another directory).
const json* same_region(const json& report, const json& region) {
  const auto file_name = [](const json& at) {
    return fs::path(at.value("file", "")).filename().string();
  };
  const json& at = region["location"];
  for (const json& r : report["regions"]) {
    const json& here = r["location"];
    if (r["kind"] == "parallel" && file_name(here) == file_name(at) &&
        here.value("line", 0) == at.value("line", -1))
      return &r;
  }
  return nullptr;
}

// Whether `hint` is an imbalance hint the report could not price because the region's loops
// were not seen (a GCC build's static loops call no runtime function).
bool unpriced_imbalance(const json& hint) {
  return hint["kind"] == "imbalance" && !hint.value("priced", true) && !hint.contains("loops");
}

// A line for a top region's unpriced imbalance hint that could not be followed.
void not_followed(const Case& c, const json& region, const std::string& why) {
  std::printf("  %-14s %-48.48s imbalance    not followed: %s\n", c.name.c_str(),
              region["label"].get<std::string>().c_str(), why.c_str());
}

// A GCC build's imbalance hints that the report could not price, in its top regions: followed
// as the report advises, by a schedule(runtime) build of the regions' static loops, scanned with
// OMP_SCHEDULE=static (the schedule they had; loops of the program that were schedule(runtime)
// already run static in that scan too), whose report prices them; then each priced hint is
// followed on the original program. Every such region gets a trial or a line saying why not.
// Returns the hints the rescan withheld (time-shared runs).
int follow_unpriced(const Case& c, const std::vector<std::string>& app, const json& report,
                    const Options& o, const fs::path& dir, std::vector<Trial>& trials) {
  std::vector<std::pair<const json*, bool>> regions;  // followed, with whether withheld
  std::map<std::string, std::vector<int>> lines;      // their static loops
  for (const json* region : top_regions(report)) {
    for (const auto& [hint, withheld] : hints_of(*region, o)) {
      if (!unpriced_imbalance(hint)) continue;
      const json& at = (*region)["location"];
      const std::vector<int> loops =
          at.contains("file") ? static_loop_lines(at["file"].get<std::string>(), at["line"])
                              : std::vector<int>{};
      if (loops.empty()) {
        not_followed(c, *region, "no static loop found in its source");
      } else {
        std::vector<int>& in_file = lines[fs::path(at["file"].get<std::string>()).filename()];
        in_file.insert(in_file.end(), loops.begin(), loops.end());
        regions.emplace_back(region, withheld);
      }
      break;  // one trial per region
    }
  }
  if (regions.empty()) return 0;
  const fs::path built = runtime_schedule_build(c, lines, dir / "runtime-all");
  const json priced = built.empty()
                          ? json(nullptr)
                          : scan(c, built, o, dir / "runs-runtime", {"OMP_SCHEDULE=static"});
  int withheld_again = 0;
  for (const auto& [region, withheld] : regions) {
    const json* again = priced.is_null() ? nullptr : same_region(priced, *region);
    if (again == nullptr) {
      not_followed(c, *region,
                   priced.is_null() ? "no scan of a schedule(runtime) build"
                                    : "not in the scan of its schedule(runtime) build");
      continue;
    }
    bool followed = false;
    for (const auto& [hint, rescan_withheld] : hints_of(*again, o)) {
      if (hint["kind"] != "imbalance" || !hint.contains("loops")) continue;
      ScheduleTrial s = schedule_trial(c, *again, hint, withheld || rescan_withheld);
      s.all_runtime = false;  // the original program's loops are static
      s.priced_by_rescan = true;
      follow_schedule(c, app, s, o, dir, trials);
      followed = true;
      break;
    }
    const auto held = (*again)["series"].back().value("withheld_hints", json::array());
    const bool held_back = std::any_of(held.begin(), held.end(), [](const json& h) {
      return h["kind"] == "imbalance" && h.contains("loops");
    });
    if (!followed && held_back) ++withheld_again;
    if (!followed) {
      not_followed(c, *region,
                   held_back ? "the scan of its schedule(runtime) build withheld it (time-shared)"
                             : "the scan of its schedule(runtime) build priced no schedule change");
    }
  }
  return withheld_again;
}

// The schedule hints of the top regions: one trial each (its loops sharing the schedule that
// gains most), the runtime setting of a GCC build, and the imbalance hints the report could not
// price. Returns the hints withheld by the scans this made (time-shared runs).
int follow_hints(const Case& c, const fs::path& binary, const json& report, const Options& o,
                 const fs::path& dir, std::vector<Trial>& trials) {
  std::vector<std::string> app = {binary.string()};
  app.insert(app.end(), c.args.begin(), c.args.end());
  follow_runtime_knob(c, app, report, o, dir, trials);
  for (const json* region : top_regions(report)) {
    for (const auto& [hint, withheld] : hints_of(*region, o)) {
      if (hint["kind"] != "imbalance" || !hint.contains("loops")) continue;
      follow_schedule(c, app, schedule_trial(c, *region, hint, withheld), o, dir, trials);
    }
  }
  const int withheld = follow_unpriced(c, app, report, o, dir, trials);
  // Hints that need the code changed: listed (follow_unpriced spoke of the top regions' unpriced
  // imbalance).
  const std::vector<const json*> top = top_regions(report);
  for (const json& region : report["regions"]) {
    const bool in_top = std::find(top.begin(), top.end(), &region) != top.end();
    for (const json& hint : region["series"].back().value("hints", json::array())) {
      if (hint["kind"] == "imbalance" && (hint.contains("loops") || in_top)) continue;
      if (hint.value("gain_s", 0.0) <
          0.05 * report["program"].back()["points"].back()["time_s"].get<double>())
        continue;
      std::printf("  %-14s %-48.48s %-12s not followed here: %s\n", c.name.c_str(),
                  region["label"].get<std::string>().c_str(),
                  hint["kind"].get<std::string>().c_str(),
                  hint["advice"].get<std::string>().substr(0, 70).c_str());
    }
  }
  return withheld;
}

std::vector<Case> cases(const Options& o) {
  const fs::path apps = fs::path(OMPSCALE_SOURCE_DIR) / "tests" / "apps";
  const std::vector<std::string> app_flags = {"-std=c++20", "-O2", "-g", "-fopenmp",
                                              "-I" + apps.string()};
  std::vector<Case> out;
  const std::vector<std::pair<std::string, std::vector<std::string>>> ours = {
      {"mandelbrot", {"1200", "runtime"}},
      {"dynamic_chunks", {"16384", "20"}},
      {"imbalance_serial", {"2000000"}},
      {"several_loops", {"400000", "20"}},
  };
  for (const auto& [name, args] : ours) {
    if (o.apps != "all" && ("," + o.apps + ",").find("," + name + ",") == std::string::npos) {
      continue;
    }
    for (const char* compiler : {"g++", "clang++"}) {
      out.push_back({name + (compiler[0] == 'g' ? "-gcc" : "-clang"),
                     compiler,
                     {apps / (name + ".cc")},
                     app_flags,
                     args});
    }
  }
  if (!o.lulesh.empty()) {
    std::vector<fs::path> sources;
    for (const auto& e : fs::directory_iterator(o.lulesh)) {
      const std::string n = e.path().filename().string();
      if (n.starts_with("lulesh") && n.ends_with(".cc")) sources.push_back(e.path());
    }
    std::sort(sources.begin(), sources.end());
    for (const char* compiler : {"g++", "clang++"}) {
      out.push_back({std::string("lulesh-") + (compiler[0] == 'g' ? "gcc" : "clang"),
                     compiler,
                     sources,
                     {"-O3", "-g", "-fopenmp", "-DUSE_MPI=0", "-I" + o.lulesh},
                     {"-s", "30", "-i", "100"}});
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (const auto& [flag, value] :
       ompscale::bench::options(argc, argv, kUsage,
                                {"--reps", "--max-reps", "--scan-reps", "--threads", "--apps",
                                 "--lulesh", "--out", "--withheld"})) {
    if (flag == "--reps")
      o.reps = static_cast<int>(ompscale::bench::integer_value(flag, value, 1, 99));
    if (flag == "--max-reps")
      o.max_reps = static_cast<int>(ompscale::bench::integer_value(flag, value, 1, 999));
    if (flag == "--scan-reps") {
      o.scan_reps = static_cast<int>(ompscale::bench::integer_value(flag, value, 1, 99));
    }
    if (flag == "--threads") {
      o.threads = static_cast<int>(ompscale::bench::integer_value(flag, value, 2, 4096));
    }
    if (flag == "--apps") o.apps = value;
    if (flag == "--lulesh") o.lulesh = value;
    if (flag == "--out") o.out = value;
    if (flag == "--withheld") {
      if (value != "yes" && value != "no") {
        std::fprintf(stderr, "hint_trial: --withheld takes yes or no, not '%s'\n%s", value.c_str(),
                     std::string(kUsage).c_str());
        return 2;
      }
      o.withheld = value == "yes";
    }
  }
  const ompscale::TemporaryDirectory scratch("hint-trial");
  if (o.out.empty()) o.out = scratch.path();
  setenv("OMP_NUM_THREADS", std::to_string(o.threads).c_str(), 1);
  std::printf(
      "hints followed at %d threads: ompscan run with %d repetitions, then %d to %d alternating "
      "runs with and without each hint, more while the realised gain's standard error exceeds "
      "an eighth of the prediction (medians; spread: the larger (max - min) / median)\n",
      o.threads, o.scan_reps, o.reps, o.max_reps);
  std::vector<Trial> trials;
  int withheld = 0;
  for (const Case& c : cases(o)) {
    const fs::path dir = o.out / c.name;
    fs::create_directories(dir);
    std::string error;
    if (!build(c, c.sources, dir / "app", error)) {
      std::fprintf(stderr, "hint_trial: %s does not build: %s\n", c.name.c_str(), error.c_str());
      return 1;
    }
    const json report = scan(c, dir / "app", o, dir / "runs");
    if (report.is_null()) return 1;
    withheld += report_withheld(c, report);
    withheld += follow_hints(c, dir / "app", report, o, dir, trials);
  }
  std::printf("\n%-16s %-40s %-72s %10s %10s %7s %5s  %s\n", "app", "hint", "followed as",
              "predicted", "realised", "spread", "runs", "verdict");
  int bad = 0;
  int followed_withheld = 0;
  for (const Trial& t : trials) {
    followed_withheld += t.withheld ? 1 : 0;
    std::printf("%-16s %-40.40s %-72.72s %9.4fs %9.4fs %6.1f%% %5d  %s%s%s\n", t.app.c_str(),
                t.hint.c_str(), t.how.c_str(), t.predicted, t.base - t.followed, 100 * t.spread,
                t.pairs, t.verdict.c_str(), t.nothing_pays ? " (nothing pays)" : "",
                t.withheld ? " (withheld: not counted)" : "");
    if (!t.withheld) bad += t.verdict == "ok" || t.verdict == "holds" ? 0 : 1;
  }
  std::printf(
      "%zu hints followed, %d not as predicted; %d withheld (time-shared runs: no verdict), %d "
      "of them followed all the same\n",
      trials.size() - static_cast<std::size_t>(followed_withheld), bad, withheld,
      followed_withheld);
  return 0;
}
