#include "common/utc_time.h"

#include <ctime>

namespace ompscale {

std::string utc_timestamp() {
  return utc_timestamp(std::time(nullptr));
}

std::string utc_timestamp(std::time_t time) {
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace ompscale
