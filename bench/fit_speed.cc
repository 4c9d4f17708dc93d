// Speed and memory of a whole `modeler fit` process on 2000 kernels (6 thread counts x 5
// repetitions each), the size of a full ompbench sweep.
//
//   build/bench/fit_speed [--kernels 2000] [--runs 11] [--modeler build/modeler/modeler]
//
// Writes the kernels as an Extra-P text file into a temporary directory, runs `modeler fit` on it
// `runs` times per output format (the text report and models.json, interleaved; output to a new
// file each time)
// and prints, per format, the median wall time and the peak resident memory per kernel:
// (peak RSS with all kernels - peak RSS with one kernel) / kernels.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "common/child_process.h"

namespace {

constexpr std::string_view kUsage =
    "fit_speed: median wall time of a whole `modeler fit` process on generated kernels (6 thread\n"
    "counts x 5 repetitions) over interleaved runs, and peak memory per kernel.\n"
    "Usage: build/bench/fit_speed [--kernels 2000] [--runs 11] [--modeler build/modeler/modeler]\n";

// Extra-P's text format, so that the same file can be timed with Extra-P for comparison.
void write_results(const std::string& path, std::size_t kernels) {
  std::ofstream out(path);
  out << "PARAMETER t\nPOINTS ( 2 ) ( 4 ) ( 8 ) ( 16 ) ( 32 ) ( 64 )\nMETRIC time\n";
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> noise(0.95, 1.05);
  const int threads[] = {2, 4, 8, 16, 32, 64};
  char line[64];
  for (std::size_t k = 0; k < kernels; ++k) {
    const double c0 = 0.1 + static_cast<double>(k % 97) * 0.01;
    const double c1 = 0.01 + static_cast<double>(k % 13) * 0.002;
    out << "REGION k" << k << '\n';
    for (int t : threads) {
      out << "DATA";
      for (int rep = 0; rep < 5; ++rep) {
        const double value = (c0 + c1 * t * std::log2(static_cast<double>(t))) * noise(rng);
        std::snprintf(line, sizeof line, " %.9g", value);
        out << line;
      }
      out << '\n';
    }
  }
}

struct RunFigures {
  double seconds;
  long max_rss_kib;
};

RunFigures run(const std::string& modeler, const std::string& input, const std::string& output,
               const char* format) {
  ompscale::ChildOptions options;
  options.argv = {modeler, "fit", input, "--format", format, "-o", output};
  options.stdin_from = ompscale::ChildStream::inherit();
  const auto start = std::chrono::steady_clock::now();
  const ompscale::ExitStatus status = ompscale::ChildProcess(options).wait();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status.shell_code() != 0) {
    std::fprintf(stderr, "modeler failed on %s (%s)\n", input.c_str(), status.describe().c_str());
    std::exit(1);
  }
  return {seconds, static_cast<long>(status.usage.max_rss_kib)};
}

struct Figures {
  std::vector<double> seconds;
  long peak_big = 0;
  long peak_one = 0;
};

void measure(Figures& f, const std::string& modeler, const std::string& big, const std::string& one,
             const std::filesystem::path& dir, const char* format) {
  // Every run writes a new file: replacing the previous run's output would make this run free
  // that file's pages (tens of MiB for models.json), which is not the fit's work.
  std::filesystem::remove(dir / "models.out");
  const RunFigures all = run(modeler, big, (dir / "models.out").string(), format);
  f.seconds.push_back(all.seconds);
  f.peak_big = std::max(f.peak_big, all.max_rss_kib);
  f.peak_one =
      std::max(f.peak_one, run(modeler, one, (dir / "one.out").string(), format).max_rss_kib);
}

void report(const char* what, Figures& f, std::size_t kernels) {
  std::sort(f.seconds.begin(), f.seconds.end());
  std::printf("%s\n", what);
  std::printf("  wall time median        %.3f s (min %.3f, max %.3f)\n",
              f.seconds[f.seconds.size() / 2], f.seconds.front(), f.seconds.back());
  std::printf("  peak RSS                %ld KiB (one kernel: %ld KiB)\n", f.peak_big, f.peak_one);
  std::printf("  memory per kernel       %.2f KiB\n",
              static_cast<double>(f.peak_big - f.peak_one) / static_cast<double>(kernels));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ompscale;
  std::size_t kernels = 2000;
  int runs = 11;
  std::string modeler = OMPSCALE_MODELER_BIN;
  for (const auto& [flag, value] :
       bench::options(argc, argv, kUsage, {"--kernels", "--runs", "--modeler"})) {
    if (flag == "--kernels")
      kernels = static_cast<std::size_t>(bench::integer_value(flag, value, 1, 10'000'000));
    else if (flag == "--runs")
      runs = static_cast<int>(bench::integer_value(flag, value, 1, 1000));
    else
      modeler = value;
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("ompscale-fit-speed-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string big = (dir / "kernels.txt").string();
  const std::string one = (dir / "one.txt").string();
  write_results(big, kernels);
  write_results(one, 1);
  std::printf("modeler fit, %zu kernels x 6 thread counts x 5 repetitions, %d runs per format\n",
              kernels, runs);
  Figures text, json;
  for (int r = 0; r < runs; ++r) {  // interleaved, so a slow phase hits every format alike
    measure(text, modeler, big, one, dir, "text");
    measure(json, modeler, big, one, dir, "json");
  }
  report("text report", text, kernels);
  report("models.json", json, kernels);
  if (std::getenv("OMPSCALE_KEEP_BENCH_FILES") == nullptr) std::filesystem::remove_all(dir);
  return 0;
}
