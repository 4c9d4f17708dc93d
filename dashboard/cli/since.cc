#include "dashboard/cli/since.h"

#include <fmt/format.h>

#include <optional>

#include "common/error.h"
#include "common/text.h"
#include "common/utc_time.h"

namespace ompscale::dashboard {

namespace {

constexpr std::time_t kDay = 24 * 60 * 60;

// "2026-11-01" or "2026-11-01T06:00[:00][Z]" as a full UTC stamp; nullopt for anything else.
std::optional<std::string> iso_stamp(std::string_view text) {
  // Digits only (no sign), within [min, max].
  const auto number = [&](std::size_t at, std::size_t digits, unsigned min,
                          unsigned max) -> std::optional<unsigned> {
    if (at + digits > text.size()) return std::nullopt;
    const auto value = parse_unsigned(text.substr(at, digits));
    if (!value || *value < min || *value > max) return std::nullopt;
    return static_cast<unsigned>(*value);
  };
  const auto is = [&](std::size_t at, char c) { return at < text.size() && text[at] == c; };
  const auto year = number(0, 4, 1970, 9999), month = number(5, 2, 1, 12),
             day = number(8, 2, 1, 31);
  if (!year || !month || !day || !is(4, '-') || !is(7, '-')) return std::nullopt;
  std::tm t{};
  t.tm_year = static_cast<int>(*year) - 1900;
  t.tm_mon = static_cast<int>(*month) - 1;
  t.tm_mday = static_cast<int>(*day);
  std::size_t end = 10;
  if (text.size() > 10) {
    const auto hour = number(11, 2, 0, 23), minute = number(14, 2, 0, 59);
    if (!is(10, 'T') || !hour || !minute || !is(13, ':')) return std::nullopt;
    t.tm_hour = static_cast<int>(*hour);
    t.tm_min = static_cast<int>(*minute);
    end = 16;
    if (is(16, ':')) {
      const auto second = number(17, 2, 0, 59);
      if (!second) return std::nullopt;
      t.tm_sec = static_cast<int>(*second);
      end = 19;
    }
    if (is(end, 'Z')) ++end;
  }
  if (end != text.size()) return std::nullopt;
  const std::time_t time = timegm(&t);
  const std::string stamp = utc_timestamp(time);
  // A day that does not exist (2026-02-30) comes back as another one.
  if (stamp.substr(0, 10) != text.substr(0, 10)) return std::nullopt;
  return text.size() == 10 ? stamp.substr(0, 10) : stamp;
}

// "7d", "12h": that long before `now`.
std::optional<std::string> ago(std::string_view text, std::time_t now) {
  if (text.size() < 2 || (text.back() != 'd' && text.back() != 'h')) return std::nullopt;
  const auto count = parse_unsigned(text.substr(0, text.size() - 1));
  if (!count || *count > 100000) return std::nullopt;
  const std::time_t unit = text.back() == 'd' ? kDay : kDay / 24;
  return utc_timestamp(now - static_cast<std::time_t>(*count) * unit);
}

}  // namespace

std::string resolve_since(std::string_view text, std::time_t now, std::string_view option) {
  const std::string_view value = trim(text);
  if (value.empty()) return {};
  if (value == "today") return utc_timestamp(now).substr(0, 10);
  if (value == "yesterday") return utc_timestamp(now - kDay).substr(0, 10);
  if (auto stamp = ago(value, now)) return *stamp;
  if (auto stamp = iso_stamp(value)) return *stamp;
  throw UsageError(fmt::format(
      "bad {} '{}': use an ISO 8601 date or UTC time (2026-11-01, 2026-11-01T06:00:00Z), "
      "'today', 'yesterday', or a time ago in days or hours (7d, 12h)",
      option, text));
}

}  // namespace ompscale::dashboard
