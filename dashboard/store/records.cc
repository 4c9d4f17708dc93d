#include "dashboard/store/records.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace ompscale::dashboard {

std::string SeriesKey::value(std::string_view column) const {
  for (const auto& [name, v] : columns) {
    if (name == column) return v;
  }
  return {};
}

std::string SeriesKey::canonical() const {
  nlohmann::json object = nlohmann::json::object();  // std::map underneath: sorted keys
  for (const auto& [name, v] : columns) object[name] = v;
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string SeriesKey::describe() const {
  std::string out;
  for (const auto& [name, v] : columns) {
    if (v.empty()) continue;
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", name, v);
  }
  return out.empty() ? "(all)" : out;
}

bool is_build_column(std::string_view column) {
  return column == "runtime_version" || column == "compiler";
}

void Fingerprint::add(std::string_view text) {
  for (const char c : text) {
    hash_ ^= static_cast<unsigned char>(c);
    hash_ *= 1099511628211ull;
  }
  // A separator after each piece, so ("ab", "c") and ("a", "bc") differ.
  hash_ ^= 0x1f;
  hash_ *= 1099511628211ull;
}

std::string Fingerprint::hex() const {
  return fmt::format("{:016x}", hash_);
}

std::string fingerprint(std::string_view text) {
  Fingerprint f;
  f.add(text);
  return f.hex();
}

}  // namespace ompscale::dashboard
