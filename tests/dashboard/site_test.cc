// `ompdash render`: a site from a generated history (a step, models, an application, a construct
// named "<script>alert(1)</script>"): every page valid HTML (tidy), names shown as text, nothing
// loaded from anywhere, links inside the site; and in a real browser (headless Chromium): the
// pages render, the plots are drawn, the DOM holds the charts and no script.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "../support/png.h"
#include "dashboard/confirm/ab_store.h"
#include "dashboard/ingest/ingest.h"
#include "dashboard/site/render.h"
#include "dashboard/store/history.h"
#include "history_fixtures.h"
#include "modeler/fit.h"
#include "modeler/io/models_json.h"
#include "modeler/io/readers.h"

namespace ompscale::dashboard {
namespace {

namespace fs = std::filesystem;
using test_support::run_program;
using test_support::slurp;

constexpr const char* kHostile = "<script>alert(1)</script>";

class SiteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / fmt::format("ompdash-site-{}", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string db_path = (dir_ / "history.sqlite").string();
    Database db = open_history(db_path);
    for (int n = 0; n < 10; ++n) {
      testing::FixtureRun r;
      r.run_id = fmt::format("n{}", n);
      r.date = testing::night(n);
      unsigned seed = 100u * static_cast<unsigned>(n);
      for (const char* construct : {"barrier", "single", kHostile}) {
        for (const char* runtime : {"libgomp", "libomp"}) {
          for (int t : {1, 2, 4, 8}) {
            testing::FixtureConfig c;
            c.construct = construct;
            c.runtime = runtime;
            c.threads = t;
            const bool stepped = std::string(construct) == "barrier" && n >= 5 && t >= 2;
            c.values = testing::noisy((0.2 + 0.1 * std::log2(t)) * (stepped ? 1.5 : 1.0), 0.02, 20,
                                      ++seed);
            r.configs.push_back(c);
          }
        }
      }
      const std::string results = testing::write_run(dir_, r.run_id + ".csv", r);
      const modeler::Dataset data = modeler::read_dataset(results, {});
      const std::string models = (dir_ / fmt::format("models{}.json", n)).string();
      test_support::spit(models, modeler::format_models_json(
                                     data, modeler::fit_dataset(data, modeler::ModelerOptions{})));
      IngestOptions options;
      options.label = n == 9 ? "<b>build</b>" : "";
      ingest_files(db, {results, models}, options);
    }
    const std::string report = testing::ompscan_report(dir_);
    IngestOptions options;
    options.reports.date = testing::night(9);
    ingest_files(db, {report}, options);
    site_ = dir_ / "site";
    pages_ = render_site(db, site_.string()).written;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static inline fs::path dir_;
  static inline fs::path site_;
  static inline std::vector<std::string> pages_;
};

TEST_F(SiteTest, WritesEveryPage) {
  std::vector<std::string> names;
  for (const std::string& p : pages_) names.push_back(fs::path(p).filename().string());
  EXPECT_NE(std::find(names.begin(), names.end(), "index.html"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "compare.html"), names.end());
  EXPECT_EQ(std::count_if(names.begin(), names.end(),
                          [](const std::string& n) { return n.starts_with("construct-"); }),
            3);
  EXPECT_EQ(std::count_if(names.begin(), names.end(),
                          [](const std::string& n) { return n.starts_with("app-"); }),
            1);
  for (const std::string& n : names) {
    EXPECT_TRUE(std::regex_match(n, std::regex("[a-z0-9-]+\\.html"))) << n;
  }
}

TEST_F(SiteTest, EveryPageIsValidHtml) {
  for (const std::string& p : pages_) {
    const auto tidy = run_program({"/usr/bin/tidy", "-errors", "-quiet", p}, dir_);
    EXPECT_EQ(tidy.status, 0) << p << "\n" << tidy.err;
  }
}

TEST_F(SiteTest, NamesAreTextAndNothingIsLoaded) {
  for (const std::string& p : pages_) {
    std::string html = slurp(p);
    std::string lower = html;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    EXPECT_EQ(lower.find("<script"), std::string::npos) << p;
    EXPECT_EQ(lower.find("<b>"), std::string::npos) << p;  // the label is text too
    EXPECT_EQ(lower.find("src="), std::string::npos) << p;
    EXPECT_EQ(lower.find("@import"), std::string::npos) << p;
    // The only URL is SVG's namespace; url(...) only points into the page.
    EXPECT_EQ(std::regex_replace(lower, std::regex("xmlns=\"http://www.w3.org/2000/svg\""), "")
                  .find("http"),
              std::string::npos)
        << p;
    const std::regex url("url\\(([^)]*)\\)"), href("href=\"([^\"#]*)");
    for (std::sregex_iterator it(html.begin(), html.end(), url), end; it != end; ++it) {
      EXPECT_EQ((*it)[1].str().front(), '#') << p;
    }
    // Links lead to pages of the site.
    for (std::sregex_iterator it(html.begin(), html.end(), href), end; it != end; ++it) {
      const std::string target = (*it)[1].str();
      if (!target.empty()) {
        EXPECT_TRUE(fs::exists(site_ / target)) << p << " -> " << target;
      }
    }
  }
  const std::string index = slurp(site_ / "index.html");
  EXPECT_NE(index.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(index.find("&lt;b&gt;build&lt;/b&gt;"), std::string::npos);
}

TEST_F(SiteTest, TheStepIsMarkedWhereItHappened) {
  std::string barrier;
  for (const std::string& p : pages_) {
    const std::string html = slurp(p);
    if (html.find("<title>Construct barrier</title>") != std::string::npos) barrier = html;
  }
  ASSERT_FALSE(barrier.empty());
  EXPECT_NE(barrier.find("class=\"change-point\""), std::string::npos);
  EXPECT_NE(barrier.find("step t=2 +50"), std::string::npos) << "the step's label";
  EXPECT_NE(barrier.find("class=\"model\""), std::string::npos) << "the modeler's model curves";
  EXPECT_NE(barrier.find("class=\"panel\""), std::string::npos) << "the modeler's panels";
  EXPECT_NE(barrier.find("class=\"history\""), std::string::npos) << "the cost histories";
}

// Headless Chromium, as a user's browser would: a fresh profile, no network features. A page
// that ran a script could wait for ever (an alert): the timeout turns that into a failure.
test_support::Outcome chromium(const std::vector<std::string>& extra, const fs::path& profile) {
  std::vector<std::string> argv = {"/usr/bin/timeout",
                                   "120",
                                   "/usr/bin/chromium",
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--disable-crash-reporter",
                                   "--no-first-run",
                                   "--user-data-dir=" + profile.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_program(argv, profile.parent_path());
}

TEST_F(SiteTest, RendersInABrowser) {
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "scripts/install-deps.sh installs chromium";
  const fs::path profile = dir_ / "chromium-profile";
  for (const std::string& page :
       {std::string("index.html"), fs::path(pages_[2]).filename().string()}) {
    const fs::path png = dir_ / (page + ".png");
    const auto shot = chromium(
        {"--window-size=1280,1600", "--screenshot=" + png.string(), (site_ / page).string()},
        profile);
    ASSERT_EQ(shot.status, 0) << shot.err;
    const test_support::Image image = test_support::decode_png(slurp(png));
    ASSERT_EQ(image.width, 1280);
    std::size_t ink = 0, plot = 0;
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        const std::uint8_t* p = image.pixel(x, y);
        ink += p[0] < 200 || p[1] < 200 || p[2] < 200;
        // The charts' first colour, tab10 blue #1f77b4 (anti-aliased: near it).
        plot +=
            std::abs(p[0] - 0x1f) < 40 && std::abs(p[1] - 0x77) < 40 && std::abs(p[2] - 0xb4) < 40;
      }
    }
    const double pixels = static_cast<double>(image.width) * image.height;
    EXPECT_GT(ink / pixels, 0.02) << page << ": nearly blank";
    EXPECT_GT(plot, 200u) << page << ": no plot drawn";
  }
  const auto dom = chromium({"--dump-dom", (site_ / "index.html").string()}, profile);
  ASSERT_EQ(dom.status, 0) << dom.err;
  EXPECT_NE(dom.out.find("<svg"), std::string::npos);
  EXPECT_NE(dom.out.find("class=\"sparkline\""), std::string::npos);
  EXPECT_NE(dom.out.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(dom.out.find("<script"), std::string::npos);
}

// Renders are incremental: what did not change is not made again; a new night re-renders the
// overview, the comparison and the pages of the constructs it measured, not the application's.
TEST(IncrementalRender, ANightReRendersWhatItChanged) {
  const fs::path dir = testing::scratch_directory("ompdash-incremental");
  const std::string db_path = (dir / "history.sqlite").string();
  const auto ingest_night = [&](int n) {
    const testing::FixtureRun r =
        testing::generated_night(n, [](const std::string&, int) { return 1.0; });
    Database db = open_history(db_path);
    ingest_files(db, {testing::write_run(dir, r.run_id + ".csv", r)}, {});
  };
  for (int n = 0; n < 8; ++n) ingest_night(n);
  {
    Database db = open_history(db_path);
    IngestOptions options;
    options.reports.date = testing::night(7);
    ingest_files(db, {testing::ompscan_report(dir)}, options);
  }
  const std::string site = (dir / "site").string();
  const auto render = [&](bool full = false) {
    Database db = open_history(db_path, true);
    return render_site(db, site, {}, full);
  };
  const auto names = [](const std::vector<std::string>& paths) {
    std::set<std::string> out;
    for (const std::string& p : paths) out.insert(fs::path(p).filename().string());
    return out;
  };
  const RenderResult first = render();
  EXPECT_EQ(first.written.size(), 6u);  // index, compare, barrier, for, single, the application
  EXPECT_TRUE(first.unchanged.empty());
  const std::string barrier = slurp(first.written[2]);
  // Nothing changed: only the overview and the comparison are made again.
  const RenderResult same = render();
  EXPECT_EQ(names(same.written), (std::set<std::string>{"index.html", "compare.html"}));
  EXPECT_EQ(same.unchanged.size(), 4u);
  EXPECT_EQ(slurp(first.written[2]), barrier);
  // A new night measured every construct: their pages change, the application's does not.
  ingest_night(8);
  const RenderResult next = render();
  EXPECT_EQ(next.written.size(), 5u);
  ASSERT_EQ(next.unchanged.size(), 1u);
  EXPECT_TRUE(fs::path(next.unchanged[0]).filename().string().starts_with("app-"));
  EXPECT_NE(slurp(first.written[2]), barrier);
  // A page removed from the site is made again; --full makes every one.
  fs::remove(next.unchanged[0]);
  EXPECT_EQ(render().written.size(), 3u);
  EXPECT_EQ(render(true).written.size(), 6u);
  fs::remove_all(dir);
}

// What a new user met on the site of a short history (each in a history of its own).
class NewUserSite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch_directory("ompdash-newsite");
    db_path_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Night `n` of barrier at `threads`, with its models; cost `scale` times the usual.
  void night(int n, const std::vector<int>& threads, const std::string& label = "",
             bool unusual = false, double scale = 1.0) {
    testing::FixtureRun r;
    r.run_id = fmt::format("n{}", n);
    r.date = testing::night(n);
    r.unusual_phase = unusual;
    for (int t : threads) {
      testing::FixtureConfig c;
      c.threads = t;
      c.values = testing::noisy((0.2 + 0.1 * t) * scale, 0.02, 20, 10u * n + t);
      r.configs.push_back(c);
    }
    const std::string results = testing::write_run(dir_, r.run_id + ".csv", r);
    const modeler::Dataset data = modeler::read_dataset(results, {});
    const std::string models = (dir_ / fmt::format("models{}.json", n)).string();
    test_support::spit(models, modeler::format_models_json(
                                   data, modeler::fit_dataset(data, modeler::ModelerOptions{})));
    Database db = open_history(db_path_);
    IngestOptions options;
    options.label = label;
    ingest_files(db, {results, models}, options);
  }

  std::string page(const std::string& name) {
    Database db = open_history(db_path_, true);
    render_site(db, (dir_ / "site").string());
    if (name != "construct") return slurp(dir_ / "site" / name);
    for (const auto& entry : fs::directory_iterator(dir_ / "site"))
      if (entry.path().filename().string().starts_with("construct-")) return slurp(entry.path());
    return "";
  }

  fs::path dir_;
  std::string db_path_;
};

TEST_F(NewUserSite, AKernelWithoutAModelSaysSo) {
  night(0, {1, 2});
  const std::string html = page("construct");
  EXPECT_NE(html.find("no model: 2 thread counts"), std::string::npos) << html;
  EXPECT_EQ(html.find("<code>nan</code>"), std::string::npos);
}

TEST_F(NewUserSite, NothingJudgedIsSaidPlainly) {
  night(0, {1, 2});
  const std::string html = page("index.html");
  EXPECT_NE(html.find("Nothing could be judged"), std::string::npos);
  EXPECT_EQ(html.find("No finding: 0 comparisons"), std::string::npos);
}

TEST_F(NewUserSite, TheBuildsTableMarksAnExcludedRun) {
  night(0, {1, 2}, "night0");
  night(1, {1, 2}, "night1", true, 1.45);
  const std::string html = page("compare.html");
  const std::size_t builds = html.find("<h2>Builds</h2>");
  ASSERT_NE(builds, std::string::npos);
  EXPECT_NE(html.find("unusual phase: excluded from the judgement", builds), std::string::npos)
      << html.substr(builds);
}

TEST_F(NewUserSite, TheABIsShownNextToTheFinding) {
  for (int n = 0; n < 8; ++n) night(n, {1, 2, 4});
  night(8, {1, 2, 4}, "", false, 1.5);
  // Rendered before the A/B ran, as a nightly does: the incremental render must make the
  // construct page again, whose finding now has an A/B, though no run or stored analysis changed.
  EXPECT_EQ(page("construct").find("confirmed by A/B"), std::string::npos);
  {
    Database db = open_history(db_path_);
    AbRun run;
    run.date = "2026-12-01T00:00:00Z";
    run.old_build.name = "night 7";
    run.new_build.name = "night 8";
    for (const SeriesInfo& s : list_series(db)) {
      AbResult result{{s, 2, list_runs(db).back().id}, {}, {}};
      result.estimate.verdict = "slower";
      result.estimate.change = 0.48;
      result.estimate.low = 0.41;
      result.estimate.high = 0.55;
      result.estimate.pairs = 10;
      run.results.push_back(result);
    }
    write_ab(db, run, "", "node1", run.date);
  }
  const std::string html = page("index.html");
  EXPECT_NE(html.find("confirmed by A/B: +48.0% [+41.0%, +55.0%] over 10 round pairs"),
            std::string::npos)
      << html;
  const std::string construct = page("construct");
  EXPECT_NE(construct.find("confirmed by A/B: +48.0% [+41.0%, +55.0%] over 10 round pairs"),
            std::string::npos)
      << construct;
}

}  // namespace
}  // namespace ompscale::dashboard
