#pragma once
// The pieces every page of the site is made of: escaping (every name from the data goes through
// it), safe file names, the page frame with its small inline style sheet and navigation, tables.
// Pages are self-contained: no script, font, image or style sheet is loaded from anywhere.

#include <string>
#include <string_view>
#include <vector>

namespace ompscale::dashboard::site {

/// `text` safe in HTML text and attribute values (& < > " ' escaped, control characters blanked).
std::string escape(std::string_view text);

/// A file name stem for `name`: lowercase letters, digits and '-', plus a short hash of the name,
/// so different names never share a file and no name can leave the site's directory.
std::string slug(std::string_view name);

/// An entry of the navigation bar.
struct NavLink {
  std::string href;
  std::string text;
};

/// A whole HTML5 page: `title` (escaped), the navigation, `body` (already HTML), a footer with
/// `footer` (escaped).
std::string page(std::string_view title, const std::vector<NavLink>& nav, std::string_view body,
                 std::string_view footer);

/// A table: header cells and rows of cells, all already HTML. `css_class` goes on the table.
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows,
                  std::string_view css_class = "");

/// "<a href=HREF>TEXT</a>" with both escaped.
std::string link(std::string_view href, std::string_view text);

/// A number for people: 4 significant digits, "n/a" for NaN.
std::string number(double value);
/// "+12.3%" (or "n/a").
std::string percent(double fraction);

}  // namespace ompscale::dashboard::site
