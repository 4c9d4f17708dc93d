// ompdash at the scale of years: a history made from one real ompbench night (bench/
// night_history.h: fresh noise, a 1% night-to-night level jitter per configuration), ingested
// night by night with `ompdash ingest`. At each checkpoint N it times `ompdash regressions`, a
// full `ompdash render` (into an empty directory), then ingests one more night and times the
// incremental render into the same site, and prints the database's size; at the end the growth
// exponent of each (the slope of log time over log N). Times are wall clock and CPU (user +
// system of the command): on a machine shared with other work the CPU time is the steadier.
//
//   build/bench/dash_scale [--from RESULTS.csv] [--nights 30,100,365] [--seed 1] [--jitter 0.01]
//                          [--models 0|1] [--keep DIR] [--ompdash PATH]
//
// Without --from it measures a night first: ompbench --suite sync --threads 1,2 (both runtimes).
// --from /tmp/sweep.csv (data/xeon-emr-16/sweep.csv.xz and its sidecar unpacked: docs/ompdash.md)
// makes the 16-core sweep's history.
// --models 1 fits each night (`modeler fit`) and ingests the models with it. --ompdash times
// another build (an older ompdash, for comparison).

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/night_history.h"
#include "common/child_process.h"
#include "common/statistics.h"

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUsage =
    "Usage: build/bench/dash_scale [--from RESULTS.csv] [--nights 30,100,365] [--seed 1]\n"
    "                              [--jitter 0.01] [--models 0|1] [--keep DIR] [--ompdash PATH]\n"
    "  ingest, regressions, full and incremental render, database size of a history of N\n"
    "  nights made from one real ompbench night, and their growth exponents\n";

struct Arguments {
  std::string from, keep, ompdash = OMPSCALE_OMPDASH_BIN;
  std::vector<int> nights = {30, 100, 365};
  unsigned seed = 1;
  double jitter = 0.01;
  bool models = false;
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  namespace b = ompscale::bench;
  for (const auto& [flag, value] : b::options(
           argc, argv, kUsage,
           {"--from", "--nights", "--seed", "--jitter", "--models", "--keep", "--ompdash"})) {
    if (flag == "--from") a.from = value;
    if (flag == "--keep") a.keep = value;
    if (flag == "--ompdash") a.ompdash = value;
    if (flag == "--seed") a.seed = static_cast<unsigned>(b::integer_value(flag, value, 0, 1 << 30));
    if (flag == "--jitter") a.jitter = b::number_value(flag, value, 0.0, 1.0);
    if (flag == "--models") a.models = b::integer_value(flag, value, 0, 1) == 1;
    if (flag == "--nights") {
      a.nights.clear();
      for (const std::string& n : ompscale::split(value, ','))
        a.nights.push_back(static_cast<int>(b::integer_value(flag, n, 2, 100000)));
      std::sort(a.nights.begin(), a.nights.end());
    }
  }
  return a;
}

struct Timed {
  double seconds = 0;      // wall clock
  double cpu_seconds = 0;  // user + system: what it costs when other processes share the cores
  double max_rss_mib = 0;
};

// Runs `argv` to its end, its output appended to `log`; throws when it fails.
Timed timed(const std::vector<std::string>& argv, const fs::path& log) {
  ompscale::ChildOptions options;
  options.argv = argv;
  options.stdout_to = ompscale::ChildStream::append(log.string());
  options.stderr_to = ompscale::ChildStream::append(log.string());
  const auto start = std::chrono::steady_clock::now();
  ompscale::ChildProcess child(options);
  const ompscale::ExitStatus status = child.wait();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  if (status.shell_code() != 0) {
    throw std::runtime_error(fmt::format("{} {} failed ({}); see {}", argv[0], argv[1],
                                         status.describe(), log.string()));
  }
  return {wall.count(), static_cast<double>(status.usage.user_ns + status.usage.system_ns) / 1e9,
          static_cast<double>(status.usage.max_rss_kib) / 1024.0};
}

std::string load() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return fmt::format("load average {} {} {} on {} cores", a, b, c, sysconf(_SC_NPROCESSORS_ONLN));
}

double megabytes(const fs::path& db) {
  std::error_code e;
  std::uintmax_t bytes = fs::file_size(db, e);
  const fs::path wal = db.string() + "-wal";
  if (fs::exists(wal, e)) bytes += fs::file_size(wal, e);
  return static_cast<double>(bytes) / 1e6;
}

struct Checkpoint {
  int nights = 0;
  Timed ingest;  // median of the last ten nights' ingests (wall and CPU)
  Timed regressions, render, incremental;
  double database_mb = 0;
};

class Bench {
 public:
  Bench(const Arguments& a, const fs::path& root, const ompscale::bench::NightHistory& history)
      : a_(a), root_(root), history_(history), db_((root / "history.sqlite").string()) {}

  // Ingests the next night (its files written, ingested, removed); returns the ingest's time.
  Timed ingest_next() {
    std::vector<std::string> files = {history_.write_night(root_, night_, a_.seed, a_.jitter)};
    if (a_.models) {
      files.push_back(fs::path(files[0]).replace_extension("").string() + "-models.json");
      timed({OMPSCALE_MODELER_BIN, "fit", files[0], "--format", "json", "-o", files[1]}, log());
    }
    std::vector<std::string> argv = {a_.ompdash, "ingest"};
    argv.insert(argv.end(), files.begin(), files.end());
    argv.insert(argv.end(), {"--db", db_});
    const Timed t = timed(argv, log());
    for (const std::string& f : files) {
      fs::remove(f);
      fs::remove(f + ".meta.json");
    }
    ++night_;
    ingests_.push_back(t.seconds);
    ingest_cpu_.push_back(t.cpu_seconds);
    return t;
  }

  Checkpoint checkpoint() {
    Checkpoint c;
    c.nights = night_;
    const std::size_t from = ingests_.size() > 10 ? ingests_.size() - 10 : 0;
    c.ingest.seconds = ompscale::stats::median(std::span<const double>(ingests_).subspan(from));
    c.ingest.cpu_seconds =
        ompscale::stats::median(std::span<const double>(ingest_cpu_).subspan(from));
    c.regressions = timed({a_.ompdash, "regressions", "--db", db_, "-o",
                           (root_ / fmt::format("regressions-{}.txt", night_)).string()},
                          log());
    const fs::path site = root_ / fmt::format("site-{}", night_);
    fs::remove_all(site);
    c.render = timed({a_.ompdash, "render", "--db", db_, "--out", site.string()}, log());
    c.database_mb = megabytes(db_);
    ingest_next();
    c.incremental = timed({a_.ompdash, "render", "--db", db_, "--out", site.string()}, log());
    return c;
  }

  int night() const { return night_; }
  double mean_ingest() const { return ompscale::stats::mean(ingests_); }
  double mean_ingest_cpu() const { return ompscale::stats::mean(ingest_cpu_); }

 private:
  fs::path log() const { return root_ / "log.txt"; }

  const Arguments& a_;
  fs::path root_;
  const ompscale::bench::NightHistory& history_;
  std::string db_;
  int night_ = 0;
  std::vector<double> ingests_, ingest_cpu_;
};

// The slope of log(y) over log(x), least squares.
double exponent(const std::vector<Checkpoint>& points, double (*y)(const Checkpoint&)) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(points.size());
  for (const Checkpoint& c : points) {
    const double lx = std::log(c.nights), ly = std::log(std::max(1e-6, y(c)));
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  const double d = n * sxx - sx * sx;
  return d > 0 ? (n * sxy - sx * sy) / d : std::nan("");
}

std::string first_night(const Arguments& a, const fs::path& root) {
  if (!a.from.empty()) return a.from;
  const fs::path night = root / "night.csv";
  std::printf("measuring one night: ompbench --suite sync --threads 1,2 ...\n");
  std::fflush(stdout);
  timed({OMPSCALE_OMPBENCH_BIN, "--suite", "sync", "--threads", "1,2", "-o", night.string(),
         "--progress", "never"},
        root / "log.txt");
  return night.string();
}

// "wall (cpu)" in seconds.
std::string both(const Timed& t) {
  return fmt::format("{:.2f} ({:.2f})", t.seconds, t.cpu_seconds);
}

void print_row(const Checkpoint& c) {
  std::printf("%6d  %16s  %16s  %16s  %16s  %9.1f MB  %7.3f MB  %7.0f MiB\n", c.nights,
              both(c.ingest).c_str(), both(c.regressions).c_str(), both(c.render).c_str(),
              both(c.incremental).c_str(), c.database_mb, c.database_mb / c.nights,
              c.render.max_rss_mib);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Arguments a = parse(argc, argv);
    const fs::path root = a.keep.empty()
                              ? fs::temp_directory_path() / fmt::format("dash-scale-{}", getpid())
                              : fs::path(a.keep);
    fs::create_directories(root);
    const ompscale::bench::NightHistory history(first_night(a, root));
    std::printf("one night: %zu rows, %zu configurations; %s; ompdash %s\n", history.rows(),
                history.configurations(), load().c_str(), a.ompdash.c_str());
    std::printf("seconds: wall (CPU, user + system)\n");
    std::printf("%6s  %16s  %16s  %16s  %16s  %12s  %10s  %11s\n", "nights", "ingest/night",
                "regressions", "render", "render +1", "database", "per night", "render RSS");
    std::fflush(stdout);
    Bench bench(a, root, history);
    std::vector<Checkpoint> points;
    for (const int n : a.nights) {
      while (bench.night() < n) bench.ingest_next();
      points.push_back(bench.checkpoint());
      print_row(points.back());
    }
    if (points.size() >= 2) {
      std::printf(
          "growth exponent of the CPU time (time ~ N^k, %d to %d nights): ingest %.2f, "
          "regressions %.2f, render %.2f, render +1 %.2f; database %.2f\n",
          points.front().nights, points.back().nights,
          exponent(points, [](const Checkpoint& c) { return c.ingest.cpu_seconds; }),
          exponent(points, [](const Checkpoint& c) { return c.regressions.cpu_seconds; }),
          exponent(points, [](const Checkpoint& c) { return c.render.cpu_seconds; }),
          exponent(points, [](const Checkpoint& c) { return c.incremental.cpu_seconds; }),
          exponent(points, [](const Checkpoint& c) { return c.database_mb; }));
      std::printf("of the wall time: ingest %.2f, regressions %.2f, render %.2f, render +1 %.2f\n",
                  exponent(points, [](const Checkpoint& c) { return c.ingest.seconds; }),
                  exponent(points, [](const Checkpoint& c) { return c.regressions.seconds; }),
                  exponent(points, [](const Checkpoint& c) { return c.render.seconds; }),
                  exponent(points, [](const Checkpoint& c) { return c.incremental.seconds; }));
    }
    std::printf("mean ingest over %d nights: %.3f s (CPU %.3f s); %s\n", bench.night(),
                bench.mean_ingest(), bench.mean_ingest_cpu(), load().c_str());
    if (a.keep.empty()) fs::remove_all(root);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dash_scale: %s\n", e.what());
    return 2;
  }
}
