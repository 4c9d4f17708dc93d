#include "modeler/model.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ompscale::modeler {

double TermShape::evaluate(double t) const {
  double v = exponent == 0.0 ? 1.0 : std::pow(t, exponent);
  if (log_exponent != 0) v *= std::pow(std::log2(t), log_exponent);
  return v;
}

std::string_view to_string(GrowthClass growth) {
  switch (growth) {
    case GrowthClass::kDecreasing:
      return "decreasing";
    case GrowthClass::kConstant:
      return "constant";
    case GrowthClass::kLogarithmic:
      return "logarithmic";
    case GrowthClass::kSublinear:
      return "sublinear";
    case GrowthClass::kLinear:
      return "linear";
    case GrowthClass::kSuperlinear:
      return "superlinear";
  }
  return "unknown";
}

double Model::evaluate(double t) const {
  double v = constant;
  for (const Term& term : terms) v += term.coefficient * term.shape.evaluate(t);
  return v;
}

const Term* Model::leading_term() const {
  const Term* best = nullptr;
  for (const Term& term : terms) {
    if (term.coefficient == 0.0) continue;
    if (best == nullptr || term.shape.exponent > best->shape.exponent ||
        (term.shape.exponent == best->shape.exponent &&
         term.shape.log_exponent > best->shape.log_exponent)) {
      best = &term;
    }
  }
  return best;
}

GrowthClass Model::growth() const {
  const Term* lead = leading_term();
  if (lead == nullptr) return GrowthClass::kConstant;
  const TermShape& s = lead->shape;
  if (s.exponent < 0.0 || (s.exponent == 0.0 && s.log_exponent == 0)) {
    return s.exponent < 0.0 ? GrowthClass::kDecreasing : GrowthClass::kConstant;
  }
  if (lead->coefficient < 0.0) return GrowthClass::kDecreasing;
  if (s.exponent == 0.0) return GrowthClass::kLogarithmic;
  if (s.exponent < 1.0) return GrowthClass::kSublinear;
  if (s.exponent == 1.0 && s.log_exponent == 0) return GrowthClass::kLinear;
  return GrowthClass::kSuperlinear;
}

bool Model::grows_faster_than_log() const {
  const Term* lead = leading_term();
  return lead != nullptr && lead->coefficient > 0.0 && lead->shape.exponent > 0.0;
}

std::string format_exponent(double exponent) {
  for (int den = 1; den <= 12; ++den) {
    const double num = exponent * den;
    const double rounded = std::round(num);
    if (std::fabs(num - rounded) < 1e-9 * std::max(1.0, std::fabs(num))) {
      const auto n = static_cast<long>(rounded);
      const long g = std::gcd(std::labs(n), static_cast<long>(den));
      if (den / g == 1) return fmt::format("{}", n / g);
      return fmt::format("{}/{}", n / g, den / g);
    }
  }
  return fmt::format("{:.4g}", exponent);  // refined exponents: 4 digits say enough
}

std::string Model::to_string(std::string_view parameter, int digits) const {
  std::string out = fmt::format("{:.{}g}", constant, digits);
  for (const Term& term : terms) {
    const double c = term.coefficient;
    out += fmt::format(" {} {:.{}g}", c < 0 ? '-' : '+', std::fabs(c), digits);
    if (term.shape.exponent != 0.0) {
      out += fmt::format(" * {}^({})", parameter, format_exponent(term.shape.exponent));
    }
    if (term.shape.log_exponent != 0) {
      out += fmt::format(" * log2({})^({})", parameter, term.shape.log_exponent);
    }
  }
  return out;
}

namespace {

class ModelParser {
 public:
  explicit ModelParser(std::string_view text) : text_(text) {}

  Model parse() {
    Model model;
    bool first = true;
    skip_space();
    while (pos_ < text_.size()) {
      double sign = 1.0;
      if (!first) {
        const char op = text_[pos_];
        if (op != '+' && op != '-') fail("expected '+' or '-' between terms");
        sign = op == '-' ? -1.0 : 1.0;
        ++pos_;
        skip_space();
      }
      const double coefficient = sign * number();
      TermShape shape;
      bool has_factor = false;
      skip_space();
      while (pos_ < text_.size() && text_[pos_] == '*') {
        ++pos_;
        skip_space();
        factor(shape);
        has_factor = true;
        skip_space();
      }
      if (has_factor) {
        model.terms.push_back({coefficient, shape});
      } else {
        model.constant += coefficient;
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
    double sign = 1.0;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) {
      sign = text_[pos_] == '-' ? -1.0 : 1.0;
      ++pos_;
    }
    double value = 0.0;
    const auto* begin = text_.data() + pos_;
    const auto [end, ec] = std::from_chars(begin, text_.data() + text_.size(), value);
    if (ec != std::errc()) fail("expected a number");
    pos_ += static_cast<std::size_t>(end - begin);
    return sign * value;
  }
  // "(3/2)", "(0.25)", "(2)"
  double parenthesized_exponent() {
    if (pos_ >= text_.size() || text_[pos_] != '(') fail("expected '(' after '^'");
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
  void factor(TermShape& shape) {
    if (text_.substr(pos_, 5) == "log2(") {
      const auto close = text_.find(')', pos_);
      if (close == std::string_view::npos) fail("unclosed log2(");
      pos_ = close + 1;
      int j = 1;
      if (pos_ < text_.size() && text_[pos_] == '^') {
        ++pos_;
        j = static_cast<int>(parenthesized_exponent());
      }
      shape.log_exponent += j;
      return;
    }
    // A parameter name followed by ^(exponent), or alone for exponent 1.
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start) fail("expected a parameter name or log2(...)");
    double i = 1.0;
    if (pos_ < text_.size() && text_[pos_] == '^') {
      ++pos_;
      i = parenthesized_exponent();
    }
    shape.exponent += i;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Model parse_model(std::string_view text) {
  return ModelParser(text).parse();
}

}  // namespace ompscale::modeler
