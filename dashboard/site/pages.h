#pragma once
// The pages of the site, one function each (docs/ompdash.md, "Site"): the overview with the
// constructs x (runtime, platform) matrix, a page per construct, the runtime comparison and a page
// per application. Each returns a whole HTML document.

#include <string>
#include <vector>

#include "dashboard/site/html.h"
#include "dashboard/site/site_data.h"

namespace ompscale::dashboard::site {

/// What every page shares: the navigation and the footer line.
struct Frame {
  std::vector<NavLink> nav;
  std::string footer;
};

std::string overview_page(const SiteData& data, const Frame& frame);
std::string construct_page_html(const SiteData& data, const std::string& construct,
                                const Frame& frame);
std::string comparison_page(const SiteData& data, const Frame& frame);
std::string application_page_html(const SiteData& data, Database& db,
                                  const std::string& application, const Frame& frame);

/// The kernel a cell of the overview stands for among several (method, binding, parameter):
/// direct before EPCC, spread before other bindings, then by key.
const SeriesHistory* headline(const std::vector<const SeriesHistory*>& candidates,
                              const SiteData& data);

/// The finding's kind in words, with the regression mark.
std::string finding_cell(const Finding& f);
/// What the A/B of the finding's kernel said (confirmed in red, not confirmed in green).
std::string confirmation_cell(const Finding& f);

}  // namespace ompscale::dashboard::site
