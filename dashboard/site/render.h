#pragma once
// `ompdash render --db DB --out DIR`: the static site of a history. Self-contained HTML pages
// (inline SVG, a small inline style sheet, no script, nothing loaded from anywhere), every name
// from the data escaped, each file written atomically.
//
// Renders are incremental: DIR/.ompdash-render.json keeps a fingerprint of what each page was
// made from (its kernels' histories, findings, noise floors and models; an application's reports),
// and a page whose fingerprint did not change since is not made again. A night that adds one run
// re-renders the overview, the comparison and the pages of the constructs it measured.

#include <string>
#include <vector>

#include "dashboard/analysis/regressions.h"
#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

struct RenderResult {
  std::vector<std::string> written;    ///< pages made and written
  std::vector<std::string> unchanged;  ///< pages whose inputs did not change: left as they were
};

/// Writes index.html, compare.html, one construct-*.html per construct and one app-*.html per
/// application into `out` (created when missing). With `full`, every page is written, changed or
/// not.
RenderResult render_site(Database& db, const std::string& out,
                         const RegressionOptions& options = {}, bool full = false);

}  // namespace ompscale::dashboard
