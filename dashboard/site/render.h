#pragma once
// `ompdash render --db DB --out DIR`: the static site of a history. Self-contained HTML pages
// (inline SVG, a small inline style sheet, no script, nothing loaded from anywhere), every name
// from the data escaped, each file written atomically.

#include <string>
#include <vector>

#include "dashboard/analysis/regressions.h"
#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

/// Writes index.html, compare.html, one construct-*.html per construct and one app-*.html per
/// application into `out` (created when missing); returns the files written.
std::vector<std::string> render_site(Database& db, const std::string& out,
                                     const RegressionOptions& options = {});

}  // namespace ompscale::dashboard
