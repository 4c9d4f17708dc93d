#include "dashboard/site/render.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "common/error.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "dashboard/site/pages.h"

namespace ompscale::dashboard {

std::vector<std::string> render_site(Database& db, const std::string& out,
                                     const RegressionOptions& options) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(out, error);
  if (!fs::is_directory(out)) throw UsageError(fmt::format("{}: cannot create the directory", out));
  const site::SiteData data = site::load_site_data(db, options);
  site::Frame frame;
  frame.nav = {{"index.html", "Overview"},
               {"index.html#last-night", "Last night"},
               {"compare.html", "Runtime comparison"},
               {"index.html#applications", "Applications"}};
  frame.footer = fmt::format("Generated {} by ompdash, ompscale {}, from {}.", utc_timestamp(),
                             version_string(), db.path());
  std::vector<std::string> written;
  const auto write = [&](const std::string& name, const std::string& html) {
    const std::string path = (fs::path(out) / name).string();
    write_output(path, html);
    written.push_back(path);
  };
  write("index.html", site::overview_page(data, frame));
  write("compare.html", site::comparison_page(data, frame));
  for (const std::string& construct : data.constructs()) {
    write(site::construct_page(construct), site::construct_page_html(data, construct, frame));
  }
  std::set<std::string> applications;
  for (const AppReportInfo& a : data.apps) applications.insert(a.application);
  for (const std::string& a : applications) {
    write(site::application_page(a), site::application_page_html(data, db, a, frame));
  }
  return written;
}

}  // namespace ompscale::dashboard
