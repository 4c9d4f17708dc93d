// Run-to-run spread of ompbench: barrier and parallel at 2 threads, measured by five separate
// ompbench processes, interleaved: started together, they take turns round by round through
// ompbench's machine lock, so they sample the machine over the same seconds. Then the same five
// one after another, which also sees the machine's drift between runs (libomp's fork/join cost
// drifts by about 1.3x over seconds on this VM). Prints each run's median per construct, metric
// and runtime, and the spread: the largest median over the smallest. EPCC shows spreads up to
// 4.5x on this kind of machine (../shared/reference/epcc-syncbench-2core-vm.md); ompbench's
// target is at most 1.3x.
//
//   build/bench/run_spread [--runs 5] [--method direct|epcc] [--metric avg_cost] [--runtime both]
//                          [--keep DIR] [--batch N]
//
// The figure is the largest spread over all (construct, runtime) pairs of the chosen metric, for
// the interleaved processes.
// First it times the reference command, `ompbench --construct barrier --bind spread
// --threads 1,2` (target: under 5 s with at least 100 valid values per thread count), 3 times.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/output_file.h"
#include "common/statistics.h"
#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;

struct Arguments {
  int runs = 5;
  std::string method = "direct";
  std::string metric;  // default: avg_cost (direct) or overhead (epcc)
  std::string runtime = "both";
  std::string keep;
  std::string batch;  // ompbench --batch; "" = its default
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--runs")
      a.runs = std::stoi(value);
    else if (flag == "--method")
      a.method = value;
    else if (flag == "--metric")
      a.metric = value;
    else if (flag == "--runtime")
      a.runtime = value;
    else if (flag == "--keep")
      a.keep = value;
    else if (flag == "--batch")
      a.batch = value;
    else {
      std::fprintf(stderr, "run_spread: unknown option %s\n", flag.c_str());
      std::exit(2);
    }
  }
  if (a.metric.empty()) a.metric = a.method == "epcc" ? "overhead" : "avg_cost";
  return a;
}

// Median of the valid values of `metric` per "construct runtime" in one results file.
std::map<std::string, double> medians(const std::string& path, const std::string& metric) {
  std::map<std::string, std::vector<double>> values;
  const std::vector<ompscale::CsvRecord> records =
      ompscale::read_csv(ompscale::read_input(path), path);
  const std::vector<std::string>& header = records.at(0).fields;
  const auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t construct = column("construct"), runtime = column("runtime"),
                    metric_column = column("metric"), value = column("value"),
                    valid = column("valid");
  for (std::size_t i = 1; i < records.size(); ++i) {
    const auto& f = records[i].fields;
    if (f[metric_column] != metric || f[valid] != "1") continue;
    values[f[construct] + " " + f[runtime]].push_back(std::stod(f[value]));
  }
  std::map<std::string, double> out;
  for (auto& [key, v] : values) out[key] = ompscale::stats::median(v);
  return out;
}

// Valid values of `metric` per "runtime threads" in one results file.
std::map<std::string, std::size_t> valid_counts(const std::string& path,
                                                const std::string& metric) {
  const std::vector<ompscale::CsvRecord> records =
      ompscale::read_csv(ompscale::read_input(path), path);
  const std::vector<std::string>& header = records.at(0).fields;
  const auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::map<std::string, std::size_t> counts;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const auto& f = records[i].fields;
    if (f[column("metric")] == metric && f[column("valid")] == "1")
      ++counts[f[column("runtime")] + " " + f[column("threads")]];
  }
  return counts;
}

// Runs `args.runs` ompbench processes measuring barrier and parallel at 2 threads, all started at
// once (interleaved: they take turns through ompbench's machine lock) or one after another,
// prints each run's median per construct and runtime, and returns the largest spread (largest
// over smallest median).
double spread_of_runs(const Arguments& args, const fs::path& dir, bool interleaved) {
  const std::string tag = interleaved ? "interleaved" : "sequential";
  std::vector<std::string> outputs;
  std::vector<std::vector<std::string>> commands;
  for (int r = 0; r < args.runs; ++r) {
    const std::string out = (dir / (tag + std::to_string(r) + ".csv")).string();
    fs::remove(out);
    fs::remove(out + ".meta.json");
    std::vector<std::string> command = {OMPSCALE_OMPBENCH_BIN,
                                        "--construct",
                                        "barrier,parallel",
                                        "--threads",
                                        "2",
                                        "--method",
                                        args.method,
                                        "--runtime",
                                        args.runtime,
                                        "--seed",
                                        std::to_string(r + 1),
                                        "-o",
                                        out};
    if (!args.batch.empty()) command.insert(command.end(), {"--batch", args.batch});
    outputs.push_back(out);
    commands.push_back(std::move(command));
  }
  const auto start = std::chrono::steady_clock::now();
  if (interleaved) {
    std::vector<std::unique_ptr<ompscale::test_support::ChildProcess>> children;
    for (int r = 0; r < args.runs; ++r) {
      const std::string log = outputs[static_cast<std::size_t>(r)] + ".log";
      children.push_back(std::make_unique<ompscale::test_support::ChildProcess>(
          commands[static_cast<std::size_t>(r)], "/dev/null", "/dev/null", log));
    }
    // All of them first: a failed one must not leave the others running.
    std::vector<int> statuses;
    for (auto& child : children) statuses.push_back(child->wait());
    for (int r = 0; r < args.runs; ++r) {
      const int status = statuses[static_cast<std::size_t>(r)];
      if (status != 0) {
        std::fprintf(
            stderr, "run_spread: ompbench failed (status %d): %s", status,
            ompscale::test_support::slurp(outputs[static_cast<std::size_t>(r)] + ".log").c_str());
        std::exit(1);
      }
    }
  } else {
    for (const std::vector<std::string>& command : commands) {
      const ompscale::test_support::Outcome outcome =
          ompscale::test_support::run_program(command, dir);
      if (outcome.status != 0) {
        std::fprintf(stderr, "run_spread: ompbench failed (status %d): %s", outcome.status,
                     outcome.err.c_str());
        std::exit(1);
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<std::map<std::string, double>> runs;
  for (const std::string& out : outputs) runs.push_back(medians(out, args.metric));
  std::printf(
      "ompbench --construct barrier,parallel --threads 2 --method %s: median %s (us) of %d "
      "separate processes, %s (%.1f s in all)\n",
      args.method.c_str(), args.metric.c_str(), args.runs,
      interleaved ? "started together, interleaved round by round" : "one after another", seconds);
  std::printf("%-22s", "construct runtime");
  for (int r = 0; r < args.runs; ++r) std::printf("  run%-5d", r + 1);
  std::printf("  spread\n");
  double worst = 0;
  for (const auto& [key, first] : runs[0]) {
    std::printf("%-22s", key.c_str());
    double low = first, high = first;
    for (const auto& run : runs) {
      const auto it = run.find(key);
      const double v = it == run.end() ? 0 : it->second;
      std::printf("  %8.4f", v);
      low = std::min(low, v);
      high = std::max(high, v);
    }
    const double spread = low > 0 ? high / low : 0;
    worst = std::max(worst, spread);
    std::printf("  %6.3fx\n", spread);
  }
  std::printf("\n");
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  const Arguments args = parse(argc, argv);
  char pattern[] = "/tmp/run-spread-XXXXXX";
  const fs::path dir = args.keep.empty() ? fs::path(mkdtemp(pattern)) : fs::path(args.keep);
  fs::create_directories(dir);

  // The reference command: wall time and the fewest valid values of any runtime and thread count.
  std::vector<double> reference_seconds;
  std::size_t fewest_valid = ~std::size_t{0};
  for (int r = 0; r < 3; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> command = {
        OMPSCALE_OMPBENCH_BIN, "--construct", "barrier", "--bind", "spread", "--threads", "1,2"};
    if (!args.batch.empty()) command.insert(command.end(), {"--batch", args.batch});
    const ompscale::test_support::Outcome outcome =
        ompscale::test_support::run_program(command, dir);
    reference_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (outcome.status != 0) {
      std::fprintf(stderr, "run_spread: ompbench failed: %s", outcome.err.c_str());
      return 1;
    }
    const std::string csv = (dir / "reference.csv").string();
    ompscale::test_support::spit(csv, outcome.out);
    for (const auto& [key, count] : valid_counts(csv, "avg_cost"))
      fewest_valid = std::min(fewest_valid, count);
  }
  std::printf(
      "ompbench --construct barrier --bind spread --threads 1,2: median %.2f s over 3 "
      "runs, at least %zu valid values per runtime and thread count (target < 5 s, >= 100)\n\n",
      ompscale::stats::median(reference_seconds), fewest_valid);

  // The target figure: five processes started together, so they take turns round by round
  // (ompbench's machine lock) and sample the machine over the same seconds. Then, for reference,
  // the same one after another: two runs at different times also see the machine's own drift.
  const double interleaved = spread_of_runs(args, dir, true);
  const double sequential = spread_of_runs(args, dir, false);
  std::printf(
      "largest run-to-run spread: %.3fx interleaved (target <= 1.3x; EPCC up to 4.5x here), "
      "%.3fx one after another\n",
      interleaved, sequential);
  if (args.keep.empty()) fs::remove_all(dir);
  return 0;
}
