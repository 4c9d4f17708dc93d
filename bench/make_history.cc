// Makes an N-night history from one real ompbench run (bench/night_history.h: fresh noise and a
// night-to-night level jitter per configuration, one night a day), as files or ingested.
//
//   build/bench/make_history --from night.csv --nights 365 --out nights/
//       [--seed 1] [--jitter 0.01] [--db history.sqlite] [--models 1]
//
// Writes nights/night-NNNN.csv with its sidecar (and with --models 1 night-NNNN-models.json, from
// `modeler fit`). With --db each night is ingested (`ompdash ingest`) as soon as it is written and
// its files are removed: a year of a large sweep never lies on the disk at once.

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "bench/bench_options.h"
#include "bench/night_history.h"
#include "dashboard/nightly/run_tool.h"

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUsage =
    "Usage: build/bench/make_history --from RESULTS.csv --nights N --out DIR [--seed 1]\n"
    "                                [--jitter 0.01] [--db HISTORY] [--models 0|1]\n"
    "  N nights copied from one ompbench run with fresh noise and a level jitter per\n"
    "  configuration; with --db ingested night by night (and their files removed)\n";

struct Arguments {
  std::string from, out, db;
  int nights = 0;
  unsigned seed = 1;
  double jitter = 0.01;
  bool models = false;
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  namespace b = ompscale::bench;
  for (const auto& [flag, value] :
       b::options(argc, argv, kUsage,
                  {"--from", "--nights", "--out", "--seed", "--jitter", "--db", "--models"})) {
    if (flag == "--from") a.from = value;
    if (flag == "--out") a.out = value;
    if (flag == "--db") a.db = value;
    if (flag == "--nights") a.nights = static_cast<int>(b::integer_value(flag, value, 1, 100000));
    if (flag == "--seed") a.seed = static_cast<unsigned>(b::integer_value(flag, value, 0, 1 << 30));
    if (flag == "--jitter") a.jitter = b::number_value(flag, value, 0.0, 1.0);
    if (flag == "--models") a.models = b::integer_value(flag, value, 0, 1) == 1;
  }
  if (a.from.empty() || a.out.empty() || a.nights == 0) {
    std::fprintf(stderr, "make_history: --from, --nights and --out are needed\n%.*s",
                 static_cast<int>(kUsage.size()), kUsage.data());
    std::exit(2);
  }
  return a;
}

void run(const std::vector<std::string>& argv, const fs::path& log) {
  const int status = ompscale::dashboard::run_tool(argv, {}, log.string());
  if (status != 0) {
    throw std::runtime_error(
        fmt::format("{} failed (exit status {}); see {}", argv[0], status, log.string()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Arguments a = parse(argc, argv);
    const ompscale::bench::NightHistory history(a.from);
    fs::create_directories(a.out);
    const fs::path log = fs::path(a.out) / "log.txt";
    std::printf("%s: %zu rows, %zu configurations; %d nights into %s\n", a.from.c_str(),
                history.rows(), history.configurations(), a.nights, a.out.c_str());
    for (int n = 0; n < a.nights; ++n) {
      std::vector<std::string> files = {history.write_night(a.out, n, a.seed, a.jitter)};
      if (a.models) {
        files.push_back(fs::path(files[0]).replace_extension("").string() + "-models.json");
        run({OMPSCALE_MODELER_BIN, "fit", files[0], "--format", "json", "-o", files[1]}, log);
      }
      if (a.db.empty()) continue;
      std::vector<std::string> ingest = {OMPSCALE_OMPDASH_BIN, "ingest"};
      ingest.insert(ingest.end(), files.begin(), files.end());
      ingest.insert(ingest.end(), {"--db", a.db});
      run(ingest, log);
      for (const std::string& f : files) {
        fs::remove(f);
        fs::remove(f + ".meta.json");
      }
    }
    std::printf("done: %d nights%s\n", a.nights,
                a.db.empty() ? "" : (" ingested into " + a.db).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_history: %s\n", e.what());
    return 2;
  }
}
