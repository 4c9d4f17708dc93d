#include "dashboard/site/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/svg.h"
#include "dashboard/store/records.h"

namespace ompscale::dashboard::site {

namespace {

// Small, readable, printable; colours match the charts (tab10).
constexpr std::string_view kStyle = R"css(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0; color: #222;
       background: #fafafa; font-size: 14px; }
header { background: #1f3b57; color: #fff; padding: 10px 20px; }
header a { color: #fff; margin-right: 18px; text-decoration: none; }
header .brand { font-weight: bold; margin-right: 28px; }
main { padding: 8px 20px 30px; max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; } h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 8px 0 16px; background: #fff; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #eef2f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bad { color: #c62828; font-weight: bold; } .good { color: #2e7d32; }
.note { color: #666; } .unusual { color: #8d6e00; }
.matrix td { min-width: 150px; }
.figure { background: #fff; border: 1px solid #ddd; margin: 8px 0; display: inline-block; }
footer { color: #777; padding: 10px 20px; font-size: 12px; }
code { background: #eef2f6; padding: 0 3px; }
)css";

}  // namespace

std::string escape(std::string_view text) {
  return svg::xml_escape(text);
}

std::string slug(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) {
      out += c;
    } else if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
    if (out.size() >= 40) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return fmt::format("{}{}{}", out, out.empty() ? "" : "-", fingerprint(name).substr(0, 8));
}

std::string page(std::string_view title, const std::vector<NavLink>& nav, std::string_view body,
                 std::string_view footer) {
  std::string links;
  for (const NavLink& l : nav) links += link(l.href, l.text);
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<header><span class=\"brand\">ompscale dashboard</span>{}</header>\n"
      "<main>\n<h1>{}</h1>\n{}</main>\n<footer>{}</footer>\n</body>\n</html>\n",
      escape(title), kStyle, links, escape(title), body, escape(footer));
}

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows, std::string_view css_class) {
  std::string out = css_class.empty() ? std::string("<table>\n")
                                      : fmt::format("<table class=\"{}\">\n", css_class);
  out += "<thead><tr>";
  for (const std::string& h : header) out += fmt::format("<th>{}</th>", h);
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& cell : row) {
      // Cells that are numbers (digits, sign, point, exponent, percent) align right.
      const bool numeric = !cell.empty() && std::all_of(cell.begin(), cell.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || std::strchr("+-.e%", c) != nullptr;
      });
      out += numeric ? fmt::format("<td class=\"num\">{}</td>", cell)
                     : fmt::format("<td>{}</td>", cell);
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string link(std::string_view href, std::string_view text) {
  return fmt::format("<a href=\"{}\">{}</a>", escape(href), escape(text));
}

std::string number(double value) {
  if (std::isnan(value)) return "n/a";
  return fmt::format("{:.4g}", value);
}

std::string percent(double fraction) {
  if (std::isnan(fraction)) return "n/a";
  return fmt::format("{:+.1f}%", 100 * fraction);
}

}  // namespace ompscale::dashboard::site
