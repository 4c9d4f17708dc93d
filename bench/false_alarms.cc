// ompdash's false-alarm rate on this machine: pairs of nightly runs of the unchanged runtimes,
// each pair a fresh history (the hardest case: the second night is judged against one run, its
// noise floor borrowed from the other kernels of its group). Counts the regressions the second
// night reports (every one is a false alarm), and prints each construct's smallest detectable
// change (the noise floor of its judged kernel at each thread count, median over the pairs).
//
//   build/bench/false_alarms [--pairs 10] [--nights 2] [--suite sync] [--threads 1,2] [--keep DIR]
//
// --nights N makes each history N nights long and judges the last one (own noise estimates
// instead of borrowed ones from the third night on).
//
// The figures: pairs with any false alarm out of the pairs judged, and false alarms out of the
// run-against-history comparisons. Nights the history judged to be in an unusual machine state
// are counted apart (not judged, so no alarm either way).

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "common/output_file.h"
#include "common/statistics.h"
#include "common/text.h"
#include "dashboard/nightly/run_tool.h"

namespace {

namespace fs = std::filesystem;

struct Arguments {
  int pairs = 10;
  int nights = 2;
  std::string suite = "sync";
  std::string threads = "1,2";
  std::string keep;
};

constexpr std::string_view kUsage =
    "usage: false_alarms [--pairs 10] [--nights 2] [--suite sync] [--threads 1,2] [--keep DIR]\n"
    "  pairs of nightly runs of the unchanged runtimes, each pair a fresh history: the false\n"
    "  alarms of the last night and each construct's smallest detectable change\n";

Arguments parse(int argc, char** argv) {
  Arguments a;
  for (const auto& [flag, value] : ompscale::bench::options(
           argc, argv, kUsage, {"--pairs", "--nights", "--suite", "--threads", "--keep"})) {
    if (flag == "--pairs")
      a.pairs = static_cast<int>(ompscale::bench::integer_value(flag, value, 1, 1000));
    if (flag == "--nights")
      a.nights = static_cast<int>(ompscale::bench::integer_value(flag, value, 2, 100));
    if (flag == "--suite") a.suite = value;
    if (flag == "--threads") a.threads = value;
    if (flag == "--keep") a.keep = value;
  }
  return a;
}

std::string config(const fs::path& dir, const fs::path& canaries, const Arguments& a) {
  const nlohmann::json c = {{"db", "history.sqlite"},
                            {"work", "nights"},
                            {"ompbench",
                             {{"args",
                               {"--suite", a.suite, "--threads", a.threads, "--canary-store",
                                canaries.string(), "--max-wait", "5"}}}},
                            {"tools",
                             {{"ompbench", OMPSCALE_OMPBENCH_BIN},
                              {"modeler", OMPSCALE_MODELER_BIN},
                              {"ompscan", OMPSCALE_OMPSCAN_BIN}}}};
  const fs::path path = dir / "nightly.json";
  ompscale::write_output(path.string(), c.dump(2));
  return path.string();
}

nlohmann::json judge(const fs::path& dir) {
  const fs::path out = dir / "regressions.json";
  const int status = ompscale::dashboard::run_tool(
      {OMPSCALE_OMPDASH_BIN, "regressions", "--db", (dir / "history.sqlite").string(), "--format",
       "json", "-o", out.string()},
      {}, (dir / "log.txt").string());
  if (status != 0) throw std::runtime_error("ompdash regressions failed; see " + dir.string());
  return nlohmann::json::parse(ompscale::read_input(out.string()));
}

struct Totals {
  int judged = 0, unusual = 0, pairs_with_alarm = 0;
  std::size_t alarms = 0, comparisons = 0;
  // construct -> "runtime t=N" -> floors over the pairs
  std::map<std::string, std::map<std::string, std::vector<double>>> floors;
};

void run_pair(int pair, const fs::path& root, const fs::path& canaries, const Arguments& a,
              Totals& totals) {
  const fs::path dir = root / fmt::format("pair{}", pair);
  fs::create_directories(dir);
  const std::string cfg = config(dir, canaries, a);
  for (int night = 0; night < a.nights; ++night) {
    const int status = ompscale::dashboard::run_tool(
        {OMPSCALE_OMPDASH_BIN, "nightly", "--config", cfg}, {}, (dir / "log.txt").string());
    if (status > 1) throw std::runtime_error("ompdash nightly failed; see " + dir.string());
  }
  const nlohmann::json report = judge(dir);
  bool unusual = false;
  std::size_t alarms = 0;
  for (const auto& f : report["findings"]) {
    unusual |= f["kind"] == "unusual phase";
    if (f["worse"].get<bool>()) {
      ++alarms;
      std::printf("  false alarm: %s\n", f["detail"].get<std::string>().c_str());
    }
  }
  const std::size_t tests = report["tests"].get<std::size_t>();
  std::printf("pair %2d: %zu false alarm(s) in %zu comparisons%s\n", pair, alarms, tests,
              unusual ? " (a night in an unusual machine state: not judged)" : "");
  std::fflush(stdout);
  if (unusual && tests == 0) {
    ++totals.unusual;
    return;
  }
  ++totals.judged;
  totals.alarms += alarms;
  totals.comparisons += tests;
  totals.pairs_with_alarm += alarms > 0 ? 1 : 0;
  for (const auto& n : report["noise"]) {
    if (n["floor"].is_null()) continue;
    totals
        .floors[n["construct"].get<std::string>()]
               [fmt::format("{} t={}", n["runtime"].get<std::string>(), n["threads"].get<int>())]
        .push_back(n["floor"].get<double>());
  }
}

void print_floors(const Totals& totals) {
  std::printf("\nSmallest detectable change per construct (noise floor, median over the pairs):\n");
  std::vector<std::string> columns;
  for (const auto& [construct, by] : totals.floors) {
    for (const auto& [column, values] : by) {
      if (std::find(columns.begin(), columns.end(), column) == columns.end())
        columns.push_back(column);
    }
  }
  std::sort(columns.begin(), columns.end());
  std::printf("%-24s", "construct");
  for (const std::string& c : columns) std::printf(" %16s", c.c_str());
  std::printf("\n");
  for (const auto& [construct, by] : totals.floors) {
    std::printf("%-24s", construct.c_str());
    for (const std::string& c : columns) {
      const auto it = by.find(c);
      if (it == by.end()) {
        std::printf(" %16s", "-");
      } else {
        std::printf(" %15.1f%%", 100 * ompscale::stats::median(it->second));
      }
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Arguments a = parse(argc, argv);
    const fs::path root = a.keep.empty()
                              ? fs::temp_directory_path() / fmt::format("false-alarms-{}", getpid())
                              : fs::path(a.keep);
    fs::create_directories(root);
    const fs::path canaries = root / "canaries.json";  // the machine's state, learned across pairs
    Totals totals;
    for (int pair = 1; pair <= a.pairs; ++pair) run_pair(pair, root, canaries, a, totals);
    print_floors(totals);
    std::printf(
        "\nFalse alarms: %d of %d judged pairs had any (%zu alarms in %zu comparisons, %.2f%%); "
        "%d pair(s) not judged (unusual machine state)\n",
        totals.pairs_with_alarm, totals.judged, totals.alarms, totals.comparisons,
        totals.comparisons ? 100.0 * totals.alarms / totals.comparisons : 0.0, totals.unusual);
    if (a.keep.empty()) fs::remove_all(root);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "false_alarms: %s\n", e.what());
    return 2;
  }
}
