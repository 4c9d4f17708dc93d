#include "modeler/multi/multi_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "common/text.h"

namespace ompscale::modeler {

double MultiTerm::shape_at(std::span<const double> x) const {
  double value = 1.0;
  for (const Factor& f : factors) value *= f.shape.evaluate(x[f.parameter]);
  return value;
}

double MultiTerm::evaluate(std::span<const double> x) const {
  return coefficient * shape_at(x);
}

double MultiModel::evaluate(std::span<const double> x) const {
  double value = constant;
  for (const MultiTerm& term : terms) value += term.evaluate(x);
  return value;
}

std::vector<std::size_t> MultiModel::parameters_used() const {
  std::vector<std::size_t> used;
  for (const MultiTerm& term : terms) {
    for (const Factor& f : term.factors) used.push_back(f.parameter);
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  return used;
}

namespace {

std::string factor_string(const Factor& f, const std::vector<std::string>& names) {
  const std::string& name = names.at(f.parameter);
  std::string out;
  if (f.shape.exponent != 0.0)
    out = fmt::format("{}^({})", name, format_exponent(f.shape.exponent));
  if (f.shape.log_exponent != 0) {
    if (!out.empty()) out += " * ";
    out += fmt::format("log2({})^({})", name, f.shape.log_exponent);
  }
  return out;
}

}  // namespace

std::string MultiModel::to_string(const std::vector<std::string>& names, int digits) const {
  std::string out = fmt::format("{:.{}g}", constant, digits);
  for (const MultiTerm& term : terms) {
    out += term.coefficient < 0.0 ? " - " : " + ";
    out += fmt::format("{:.{}g}", std::fabs(term.coefficient), digits);
    for (const Factor& f : term.factors) {
      const std::string text = factor_string(f, names);
      if (!text.empty()) out += " * " + text;
    }
  }
  return out;
}

Model MultiModel::along(std::size_t p, std::span<const double> x) const {
  Model model;
  model.constant = constant;
  for (const MultiTerm& term : terms) {
    double coefficient = term.coefficient;
    TermShape shape;
    bool has_p = false;
    for (const Factor& f : term.factors) {
      if (f.parameter == p) {
        shape = f.shape;
        has_p = true;
      } else {
        coefficient *= f.shape.evaluate(x[f.parameter]);
      }
    }
    if (!has_p) {
      model.constant += coefficient;
      continue;
    }
    const auto same = std::find_if(model.terms.begin(), model.terms.end(),
                                   [&](const Term& t) { return t.shape == shape; });
    if (same != model.terms.end()) {
      same->coefficient += coefficient;
    } else {
      model.terms.push_back({coefficient, shape});
    }
  }
  return model;
}

namespace {

class MultiModelParser {
 public:
  MultiModelParser(std::string_view text, const std::vector<std::string>& names)
      : text_(text), names_(names) {}

  MultiModel parse() {
    MultiModel model;
    bool first = true;
    skip_space();
    while (pos_ < text_.size()) {
      double sign = 1.0;
      if (!first) {
        const char op = text_[pos_];
        if (op != '+' && op != '-') fail("expected '+' or '-' between terms");
        sign = op == '-' ? -1.0 : 1.0;
        ++pos_;
      }
      MultiTerm term;
      term.coefficient = sign * number();
      skip_space();
      while (pos_ < text_.size() && text_[pos_] == '*') {
        ++pos_;
        skip_space();
        factor(term);
        skip_space();
      }
      if (term.factors.empty()) {
        model.constant += term.coefficient;
      } else {
        std::sort(term.factors.begin(), term.factors.end(),
                  [](const Factor& a, const Factor& b) { return a.parameter < b.parameter; });
        model.terms.push_back(std::move(term));
      }
      first = false;
    }
    if (first) fail("empty model");
    return model;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(
        fmt::format("cannot parse model '{}' at position {}: {}", text_, pos_, why));
  }
  void skip_space() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  double number() {
    skip_space();
    const std::optional<LeadingNumber> number = parse_leading_double(text_.substr(pos_));
    if (!number) fail("expected a number");
    pos_ = text_.size() - number->rest.size();
    return number->value;
  }
  // "(3/2)", "(0.25)", "(2)"
  double parenthesized() {
    if (pos_ >= text_.size() || text_[pos_] != '(') fail("expected '('");
    ++pos_;
    double value = number();
    if (pos_ < text_.size() && text_[pos_] == '/') {
      ++pos_;
      const double den = number();
      if (den == 0.0) fail("zero denominator");
      value /= den;
    }
    if (pos_ >= text_.size() || text_[pos_] != ')') fail("expected ')'");
    ++pos_;
    return value;
  }
  std::string_view name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start) fail("expected a parameter name or log2(...)");
    return text_.substr(start, pos_ - start);
  }
  // Without names every name is the one parameter (a single-parameter model).
  std::size_t index_of(std::string_view parameter) {
    if (names_.empty()) return 0;
    const auto it = std::find(names_.begin(), names_.end(), parameter);
    if (it == names_.end()) fail(fmt::format("unknown parameter '{}'", parameter));
    return static_cast<std::size_t>(it - names_.begin());
  }
  Factor& factor_for(MultiTerm& term, std::size_t parameter) {
    for (Factor& f : term.factors) {
      if (f.parameter == parameter) return f;
    }
    term.factors.push_back({parameter, {}});
    return term.factors.back();
  }
  void factor(MultiTerm& term) {
    if (text_.substr(pos_, 5) == "log2(") {
      pos_ += 5;
      Factor& f = factor_for(term, index_of(name()));
      if (pos_ >= text_.size() || text_[pos_] != ')') fail("expected ')' after log2(name");
      ++pos_;
      int j = 1;
      if (pos_ < text_.size() && text_[pos_] == '^') {
        ++pos_;
        j = static_cast<int>(parenthesized());
      }
      f.shape.log_exponent += j;
      return;
    }
    Factor& f = factor_for(term, index_of(name()));
    double i = 1.0;
    if (pos_ < text_.size() && text_[pos_] == '^') {
      ++pos_;
      i = parenthesized();
    }
    f.shape.exponent += i;
  }

  std::string_view text_;
  const std::vector<std::string>& names_;
  std::size_t pos_ = 0;
};

}  // namespace

MultiModel parse_multi_model(std::string_view text, const std::vector<std::string>& names) {
  return MultiModelParser(text, names).parse();
}

}  // namespace ompscale::modeler
