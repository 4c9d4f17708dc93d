// Regression detection on generated histories: a 20% step, a slow drift and a log -> linear growth
// change are found and dated to the run that caused them; an unchanged history reports nothing;
// a run in an unusual canary phase is reported as such; ingesting again changes nothing.

#include "dashboard/analysis/regressions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text.h"
#include "common/utc_time.h"
#include "dashboard/analysis/model_checks.h"
#include "dashboard/cli/since.h"
#include "dashboard/confirm/ab_store.h"
#include "dashboard/ingest/ingest.h"
#include "dashboard/store/history.h"
#include "history_fixtures.h"
#include "modeler/fit.h"
#include "modeler/io/models_json.h"
#include "modeler/io/readers.h"

namespace ompscale::dashboard {
namespace {

namespace fs = std::filesystem;
using testing::FixtureConfig;
using testing::FixtureRun;

using testing::CostOfNight;
using testing::kUnchanged;

class GeneratedHistory : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch_directory("ompdash-gen");
    db_path_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One night's run (testing::generated_night), ingested.
  std::string night(int n, const CostOfNight& cost, bool unusual = false,
                    std::vector<int> threads = {1, 2}) {
    FixtureRun r;
    r.date = testing::night(n);
    r.unusual_phase = unusual;
    return night_of(n, cost, r, threads);
  }

  // The same with the run's date and canaries given in `r` (testing::generated_night_of).
  std::string night_of(int n, const CostOfNight& cost, FixtureRun base,
                       std::vector<int> threads = {1, 2}) {
    const FixtureRun r = testing::generated_night_of(n, cost, std::move(base), threads);
    const std::string file = testing::write_run(dir_, r.run_id + ".csv", r);
    files_.push_back(file);
    ingest({file});
    return file;
  }

  void ingest(const std::vector<std::string>& files) {
    Database db = open_history(db_path_);
    ingest_files(db, files, {});
  }

  RegressionReport regressions(const std::string& since = "") {
    Database db = open_history(db_path_, true);
    RegressionOptions options;
    options.since = since;
    return find_regressions(db, options);
  }

  static std::vector<Finding> worse(const RegressionReport& r) {
    std::vector<Finding> out;
    for (const Finding& f : r.findings) {
      if (f.worse) out.push_back(f);
    }
    return out;
  }

  fs::path dir_;
  std::string db_path_;
  std::vector<std::string> files_;
};

TEST_F(GeneratedHistory, UnchangedRuntimeReportsNothing) {
  for (int n = 0; n < 30; ++n) night(n, kUnchanged);
  const RegressionReport all = regressions(testing::night(0));
  EXPECT_TRUE(all.findings.empty()) << format_findings_text(all);
  EXPECT_EQ(all.histories, 6u);
  EXPECT_GT(all.tests, 150u);
  for (const KernelNoise& n : all.noise) {
    // sigma 2% (and the medians' own spread) learned per kernel from 29 differences; the floor
    // a few times that at 1% over the comparisons.
    EXPECT_GT(n.sigma, 0.01) << n.kernel;
    EXPECT_LT(n.sigma, 0.04) << n.kernel;
    EXPECT_GT(n.floor, 0.04);
    EXPECT_LT(n.floor, 0.20);
  }
}

TEST_F(GeneratedHistory, ATwentyPercentStepIsFoundAndDated) {
  for (int n = 0; n < 30; ++n) {
    night(n, [&](const std::string& c, int t) {
      return c == "barrier" && t == 2 && n >= 17 ? 1.2 : 1.0;
    });
  }
  const RegressionReport all = regressions(testing::night(0));
  const std::vector<Finding> found = worse(all);
  ASSERT_EQ(found.size(), 1u) << format_findings_text(all);
  EXPECT_EQ(found[0].kind, FindingKind::kStep);
  EXPECT_EQ(found[0].construct, "barrier");
  EXPECT_EQ(found[0].threads, 2);
  EXPECT_EQ(found[0].run_id, "n17");
  EXPECT_EQ(found[0].date, testing::night(17));
  EXPECT_NEAR(found[0].change, 0.2, 0.04);
  EXPECT_EQ(all.findings.size(), 1u) << format_findings_text(all);
  // Judging only the latest run: it is like the ones before it.
  EXPECT_EQ(regressions().regressions(), 0u) << format_findings_text(regressions());
}

TEST_F(GeneratedHistory, TheLatestRunIsJudgedAgainstItsHistory) {
  for (int n = 0; n < 11; ++n) night(n, kUnchanged);
  night(11, [](const std::string& c, int t) { return c == "barrier" && t == 2 ? 1.25 : 1.0; });
  const RegressionReport latest = regressions();
  const std::vector<Finding> found = worse(latest);
  ASSERT_EQ(found.size(), 1u) << format_findings_text(latest);
  EXPECT_EQ(found[0].kind, FindingKind::kRegression);
  EXPECT_EQ(found[0].construct, "barrier");
  EXPECT_EQ(found[0].threads, 2);
  EXPECT_EQ(found[0].run_id, "n11");
  // The estimate carries the night-to-night noise (2%, against a 5-run mean): within 3.5 sd.
  EXPECT_NEAR(std::log1p(found[0].change), std::log(1.25), 0.08);
  EXPECT_LT(found[0].p_value, 0.01);
  EXPECT_GT(found[0].change, found[0].noise_floor);
  EXPECT_EQ(latest.tests, 6u);
}

TEST_F(GeneratedHistory, AnUnusualCanaryPhaseIsReportedNotJudged) {
  for (int n = 0; n < 11; ++n) night(n, kUnchanged);
  night(
      11, [](const std::string&, int) { return 1.5; }, true);
  const RegressionReport latest = regressions();
  EXPECT_EQ(latest.regressions(), 0u) << format_findings_text(latest);
  ASSERT_EQ(latest.findings.size(), 1u) << format_findings_text(latest);
  EXPECT_EQ(latest.findings[0].kind, FindingKind::kUnusualPhase);
  EXPECT_EQ(latest.findings[0].run_id, "n11");
  // Nor does it count as history: the next normal run is judged against the ones before.
  night(12, kUnchanged);
  EXPECT_TRUE(regressions().findings.empty()) << format_findings_text(regressions());
}

TEST_F(GeneratedHistory, ASlowDriftIsFoundAndDated) {
  for (int n = 0; n < 40; ++n) {
    night(n, [&](const std::string& c, int t) {
      return c == "for" && t == 2 && n >= 20 ? std::pow(1.015, n - 19) : 1.0;
    });
  }
  const RegressionReport all = regressions(testing::night(0));
  const std::vector<Finding> found = worse(all);
  ASSERT_EQ(found.size(), 1u) << format_findings_text(all);
  EXPECT_EQ(found[0].kind, FindingKind::kDrift);
  EXPECT_EQ(found[0].construct, "for");
  EXPECT_EQ(found[0].threads, 2);
  const int start = std::stoi(found[0].run_id.substr(1));
  EXPECT_NEAR(start, 20, 2) << found[0].detail;
  EXPECT_GT(found[0].change, 0.15);
}

TEST_F(GeneratedHistory, ALogToLinearGrowthChangeIsFoundAndDated) {
  const std::vector<int> threads = {1, 2, 4, 8, 16, 32, 64};
  for (int n = 0; n < 10; ++n) {
    const std::string results = night(
        n,
        [&](const std::string& c, int t) {
          if (c != "barrier") return 1.0;
          return n < 6 ? 0.2 + 0.1 * std::log2(t) : 0.2 + 0.05 * t;
        },
        false, threads);
    const modeler::Dataset data = modeler::read_dataset(results, {});
    const std::string models = (dir_ / fmt::format("models{}.json", n)).string();
    test_support::spit(models, modeler::format_models_json(
                                   data, modeler::fit_dataset(data, modeler::ModelerOptions{})));
    files_.push_back(models);
    ingest({models});
  }
  const RegressionReport all = regressions(testing::night(0));
  std::vector<Finding> growth;
  for (const Finding& f : all.findings) {
    if (f.kind == FindingKind::kGrowthChange) growth.push_back(f);
  }
  ASSERT_EQ(growth.size(), 1u) << format_findings_text(all);
  EXPECT_EQ(growth[0].construct, "barrier");
  EXPECT_TRUE(growth[0].worse);
  EXPECT_EQ(growth[0].date, testing::night(6));
  EXPECT_EQ(growth[0].run_id, "n6");
  // From logarithmic to worse than logarithmic: the modeler calls the new points linear, or (for
  // some noise) t^(3/4) * log2(t), which fits 1 to 64 threads as well; either is the change.
  EXPECT_EQ(growth[0].before, growth_rank("logarithmic"));
  EXPECT_GE(growth[0].after, growth_rank("sublinear")) << growth[0].detail;
  EXPECT_NE(growth[0].detail.find("growth logarithmic -> "), std::string::npos) << growth[0].detail;
  // The 64-thread value left the previous model's interval the same night.
  bool outside = false;
  for (const Finding& f : all.findings) {
    outside |= f.kind == FindingKind::kOutsideInterval && f.date == testing::night(6) &&
               f.threads == 64 && f.worse && f.run_id == "n6";
  }
  EXPECT_TRUE(outside) << format_findings_text(all);
  // Nothing about the constructs that did not change.
  for (const Finding& f : all.findings) EXPECT_EQ(f.construct, "barrier") << f.detail;
}

TEST_F(GeneratedHistory, IngestingEverythingAgainChangesNothing) {
  for (int n = 0; n < 20; ++n) {
    night(n, [&](const std::string& c, int t) {
      return c == "single" && t == 1 && n >= 10 ? 1.2 : 1.0;
    });
  }
  const std::string before = format_findings_json(regressions(testing::night(0)));
  ingest(files_);
  std::vector<std::string> reversed(files_.rbegin(), files_.rend());
  ingest(reversed);
  EXPECT_EQ(format_findings_json(regressions(testing::night(0))), before);
  Database db = open_history(db_path_, true);
  EXPECT_EQ(list_runs(db).size(), 20u);
}

TEST_F(GeneratedHistory, TheCommandFailsOnRegressionsWhenAsked) {
  for (int n = 0; n < 8; ++n) night(n, kUnchanged);
  night(8, [](const std::string& c, int t) { return c == "single" && t == 1 ? 1.4 : 1.0; });
  const auto ompdash = [&](std::vector<std::string> args) {
    args.insert(args.begin(), OMPSCALE_OMPDASH_BIN);
    return test_support::run_program(args, dir_);
  };
  const auto failed = ompdash({"regressions", "--db", db_path_, "--fail-on-regression"});
  EXPECT_EQ(failed.status, 1) << failed.err;
  EXPECT_NE(failed.out.find("1 regression(s)"), std::string::npos) << failed.out;
  const auto json = ompdash({"regressions", "--db", db_path_, "--format", "json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed["regressions"], 1);
  EXPECT_EQ(parsed["findings"][0]["construct"], "single");
  EXPECT_EQ(parsed["findings"][0]["run_id"], "n8");
  EXPECT_EQ(parsed["noise"].size(), 6u);
  // --since judges every run from then on (night 8 included); metrics not judged find nothing.
  EXPECT_EQ(ompdash({"regressions", "--db", db_path_, "--since", testing::night(7),
                     "--fail-on-regression", "--metrics", "avg_cost"})
                .status,
            1);
  EXPECT_EQ(
      ompdash({"regressions", "--db", db_path_, "--metrics", "overhead", "--fail-on-regression"})
          .status,
      0);
  EXPECT_EQ(ompdash({"regressions", "--db", db_path_, "--format", "xml"}).status, 2);
}

// The dates people type: `--since yesterday` judged nothing (every date sorted before the word)
// and a cron job with --fail-on-regression passed a regression. Now the forms a person types are
// understood and anything else is refused.
TEST(Since, TheFormsAPersonTypesAndNothingElse) {
  const std::time_t now = 1795890783;  // 2026-11-28T18:33:03Z
  EXPECT_EQ(utc_timestamp(now), "2026-11-28T18:33:03Z");
  EXPECT_EQ(resolve_since("", now), "");
  EXPECT_EQ(resolve_since("today", now), "2026-11-28");
  EXPECT_EQ(resolve_since("yesterday", now), "2026-11-27");
  EXPECT_EQ(resolve_since("7d", now), "2026-11-21T18:33:03Z");
  EXPECT_EQ(resolve_since("12h", now), "2026-11-28T06:33:03Z");
  EXPECT_EQ(resolve_since("2026-11-01", now), "2026-11-01");
  EXPECT_EQ(resolve_since("2026-11-01T06:00", now), "2026-11-01T06:00:00Z");
  EXPECT_EQ(resolve_since("2026-11-01T06:00:30Z", now), "2026-11-01T06:00:30Z");
  for (const char* bad : {"last tuesday", "2026-13-01", "2026-02-30", "2026-11-1", "7", "d", "-7d",
                          "2026-11-01T25:00", "2026-11-01 06:00", "20261101"}) {
    EXPECT_THROW(resolve_since(bad, now), UsageError) << bad;
  }
}

TEST_F(GeneratedHistory, SinceYesterdayFindsLastNightsRegression) {
  // Nights dated on the last 10 days up to a few minutes ago, and never before today's UTC
  // midnight ("--since today" must find the last one also just after midnight); the last one
  // regressed.
  const std::time_t now = std::time(nullptr);
  const std::time_t ago = std::min<std::time_t>(300, now % 86400);
  for (int n = 0; n < 10; ++n) {
    FixtureRun r;
    r.date = utc_timestamp(now - (9 - n) * 86400 - ago);
    night_of(
        n,
        [&](const std::string& c, int t) { return n == 9 && c == "barrier" && t == 2 ? 1.4 : 1.0; },
        r);
  }
  const auto ompdash = [&](std::vector<std::string> args) {
    args.insert(args.begin(), OMPSCALE_OMPDASH_BIN);
    return test_support::run_program(args, dir_);
  };
  for (const char* since : {"yesterday", "2d", "today"}) {
    const auto out = ompdash({"regressions", "--db", db_path_, "--since", since,
                              "--fail-on-regression", "--format", "json"});
    EXPECT_EQ(out.status, 1) << since << ": " << out.out << out.err;
  }
  const auto refused = ompdash({"regressions", "--db", db_path_, "--since", "lastweek"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_THAT(refused.err, ::testing::HasSubstr("bad --since 'lastweek'"));
}

// A machine faster than its typical state is the typical state changing (a new machine, a quieter
// host): its runs were excluded as "unusual" (2 of 3 nights of the README's example). Now they
// are said to be faster, judged against runs of their own state, and a regression among them is
// found.
TEST_F(GeneratedHistory, AFasterMachineStateIsJudgedWithinItself) {
  const auto faster_night = [&](int n, const CostOfNight& cost) {
    FixtureRun r;
    r.date = testing::night(n);
    r.canary_ns = 150;  // ompbench's store still knew 420 as typical
    night_of(
        n, [&](const std::string& c, int t) { return 0.5 * cost(c, t); }, r);
  };
  for (int n = 0; n < 8; ++n) night(n, kUnchanged);
  for (int n = 8; n < 12; ++n) faster_night(n, kUnchanged);
  const RegressionReport unchanged = regressions();
  EXPECT_EQ(unchanged.regressions(), 0u) << format_findings_text(unchanged);
  ASSERT_EQ(unchanged.findings.size(), 1u) << format_findings_text(unchanged);
  EXPECT_EQ(unchanged.findings[0].kind, FindingKind::kFasterState);
  EXPECT_THAT(unchanged.findings[0].detail, ::testing::HasSubstr("3 before it"));
  EXPECT_GT(unchanged.tests, 0u);  // judged, within its state
  faster_night(12,
               [](const std::string& c, int t) { return c == "barrier" && t == 2 ? 1.4 : 1.0; });
  const RegressionReport regressed = regressions();
  const std::vector<Finding> found = worse(regressed);
  ASSERT_EQ(found.size(), 1u) << format_findings_text(regressed);
  EXPECT_EQ(found[0].construct, "barrier");
  EXPECT_EQ(found[0].run_id, "n12");
  EXPECT_NEAR(found[0].change, 0.4, 0.1);
}

// Tools fit the terminal they print on; ompdash printed lines of 331 and 273 columns on a
// 120-column terminal. (COLUMNS stands for the terminal: the output is a pipe here.)
TEST_F(GeneratedHistory, RegressionsAndListFitTheTerminal) {
  for (int n = 0; n < 8; ++n) night(n, kUnchanged);
  FixtureRun r;
  r.date = testing::night(8);
  r.unusual_phase = true;
  night_of(8, kUnchanged, r);
  night(9, [](const std::string& c, int t) { return c == "single" && t == 1 ? 1.4 : 1.0; });
  const auto lines_wider_than = [](const std::string& text, std::size_t width) {
    std::string wide;
    for (const std::string& line : split(text, '\n'))
      if (display_width(line) > width) wide += line + "\n";
    return wide;
  };
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"regressions", "--db", db_path_, "--since", testing::night(8),
                                 "--noise"},
        std::vector<std::string>{"list", "--db", db_path_}}) {
    std::vector<std::string> argv = {"/usr/bin/env", "COLUMNS=120", OMPSCALE_OMPDASH_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto out = test_support::run_program(argv, dir_);
    ASSERT_EQ(out.status, 0) << out.err;
    EXPECT_EQ(lines_wider_than(out.out, 120), "") << args[0] << ":\n" << out.out;
    EXPECT_GT(out.out.size(), 500u);
  }
  // A file keeps whole lines.
  const std::string file = (dir_ / "regressions.txt").string();
  ASSERT_EQ(
      test_support::run_program({"/usr/bin/env", "COLUMNS=120", OMPSCALE_OMPDASH_BIN, "regressions",
                                 "--db", db_path_, "--since", testing::night(8), "-o", file},
                                dir_)
          .status,
      0);
  EXPECT_NE(lines_wider_than(test_support::slurp(file), 120), "");
}

TEST_F(GeneratedHistory, AnUnknownSubcommandNamesTheNearestOne) {
  const auto out =
      test_support::run_program({OMPSCALE_OMPDASH_BIN, "regresions", "--db", "x"}, dir_);
  EXPECT_EQ(out.status, 2);
  EXPECT_EQ(out.err,
            "ompdash: unknown subcommand 'regresions'; did you mean regressions? (see ompdash "
            "--help)\n");
}

// An A/B that measured the flagged kernel unchanged (its builds alike) takes the regression off
// the failing ones; one that measured it slower, or none at all, keeps it.
TEST_F(GeneratedHistory, OnlyRegressionsNoABRefutedFailTheNight) {
  for (int n = 0; n < 8; ++n) night(n, kUnchanged);
  night(8, [](const std::string& c, int t) { return c == "single" && t == 1 ? 1.4 : 1.0; });
  const auto fail_status = [&]() {
    return test_support::run_program(
               {OMPSCALE_OMPDASH_BIN, "regressions", "--db", db_path_, "--fail-on-regression"},
               dir_)
        .status;
  };
  EXPECT_EQ(fail_status(), 1);  // no A/B
  const auto store_ab = [&](const std::string& verdict, double change) {
    Database db = open_history(db_path_);
    AbRun run;
    run.date = "2026-12-01T00:00:00Z";
    run.old_build.name = "night 7";
    run.new_build.name = "night 8";
    for (const SeriesInfo& s : list_series(db)) {
      if (s.construct != "single") continue;
      AbTarget target{s, 1, list_runs(db).back().id};
      AbResult result{target, {}, {}};
      result.estimate.verdict = verdict;
      result.estimate.change = change;
      result.estimate.low = change - 0.02;
      result.estimate.high = change + 0.02;
      result.estimate.pairs = 10;
      run.results.push_back(result);
    }
    write_ab(db, run, "", "node1", "2026-12-01T00:00:00Z");
  };
  store_ab("unchanged", 0.01);
  EXPECT_EQ(fail_status(), 0);
  Database db = open_history(db_path_, true);
  const RegressionReport report = find_regressions(db);
  ASSERT_EQ(report.regressions(), 1u);
  ASSERT_TRUE(report.findings[0].confirmation.has_value());
  EXPECT_FALSE(report.findings[0].confirmed());
  EXPECT_THAT(format_findings_text(report), ::testing::HasSubstr("not confirmed by A/B: +1.0%"));
  store_ab("slower", 0.38);  // the latest A/B counts
  EXPECT_EQ(fail_status(), 1);
  const auto json = test_support::run_program(
      {OMPSCALE_OMPDASH_BIN, "regressions", "--db", db_path_, "--format", "json"}, dir_);
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed["failing"], 1);
  EXPECT_EQ(parsed["findings"][0]["confirmation"]["verdict"], "slower");
  EXPECT_EQ(parsed["findings"][0]["confirmation"]["confirmed"], true);
}

}  // namespace
}  // namespace ompscale::dashboard
