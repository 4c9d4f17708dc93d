#include "regions/run/rapl.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

#include "common/text.h"

namespace ompscale::regions {

namespace {

namespace fs = std::filesystem;

// Reads a small sysfs file; "" and `error` set when it cannot be read.
std::string read_small_file(const std::string& path, std::string& error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    if (errno == EACCES) error += " (RAPL counters are readable by root only since Linux 5.10)";
    return "";
  }
  char buffer[128];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer - 1)) < 0 && errno == EINTR) {
  }
  if (n < 0) error = std::strerror(errno);
  close(fd);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
}

bool read_number(const std::string& path, std::uint64_t& value, std::string& error) {
  std::string text = read_small_file(path, error);
  if (!error.empty()) return false;
  const std::string_view counter = trim(text);
  const std::optional<std::uint64_t> read = parse_unsigned(counter);
  if (!read) {
    error = fmt::format("'{}' is not a counter value", counter);
    return false;
  }
  value = *read;
  return true;
}

std::string zone_name(const fs::path& zone) {
  std::string error;
  const std::string text = read_small_file((zone / "name").string(), error);
  const std::string_view name = trim(text);
  return name.empty() ? zone.filename().string() : std::string(name);
}

}  // namespace

std::string default_powercap_root() {
  const char* root = std::getenv("OMPSCAN_POWERCAP_ROOT");
  return root != nullptr && *root != '\0' ? root : "/sys/class/powercap";
}

std::uint64_t energy_delta_uj(std::uint64_t before, std::uint64_t after, std::uint64_t range_uj) {
  if (after >= before) return after - before;
  return range_uj >= before ? range_uj - before + after : after;
}

RaplMeter::RaplMeter(const std::string& root) {
  std::error_code error;
  std::vector<fs::path> zones;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error))
    if (it->path().filename().string().starts_with("intel-rapl:")) zones.push_back(it->path());
  if (error && zones.empty()) {
    reason_ =
        fmt::format("no {} ({}): no powercap interface, so no RAPL energy", root, error.message());
    return;
  }
  if (zones.empty()) {
    reason_ = fmt::format("no {}/intel-rapl:* zones: RAPL is not exposed on this machine", root);
    return;
  }
  std::sort(zones.begin(), zones.end());

  for (const fs::path& zone : zones) {
    Domain domain;
    const std::string directory = zone.filename().string();
    const std::string name = zone_name(zone);
    domain.label = fmt::format("{} ({})", directory, name);
    // Sub-zone names (core, uncore, dram) repeat per package: qualify them with the package.
    const std::size_t second_colon = directory.find(':', std::strlen("intel-rapl:"));
    domain.key =
        second_colon == std::string::npos
            ? name
            : zone_name(zone.parent_path() / directory.substr(0, second_colon)) + "/" + name;
    domain.energy_path = (zone / "energy_uj").string();
    std::string failure;
    std::uint64_t value = 0;
    if (!read_number(domain.energy_path, value, failure)) {
      skipped_.push_back(fmt::format("{}: cannot read energy_uj: {}", domain.label, failure));
      continue;
    }
    if (!read_number((zone / "max_energy_range_uj").string(), domain.range_uj, failure)) {
      skipped_.push_back(
          fmt::format("{}: cannot read max_energy_range_uj ({}), so a wrap could not be corrected",
                      domain.label, failure));
      continue;
    }
    if (std::any_of(domains_.begin(), domains_.end(),
                    [&](const Domain& d) { return d.key == domain.key; }))
      domain.key += " " + directory;
    domains_.push_back(std::move(domain));
  }
  if (domains_.empty()) reason_ = fmt::format("{}", fmt::join(skipped_, "; "));
}

void RaplMeter::read_domain(Domain& domain, bool accumulate) {
  if (!domain.error.empty()) return;
  std::uint64_t now = 0;
  std::string failure;
  if (!read_number(domain.energy_path, now, failure)) {
    domain.error = fmt::format("{}: cannot read energy_uj: {}", domain.label, failure);
    return;
  }
  if (accumulate) domain.used_uj += energy_delta_uj(domain.last_uj, now, domain.range_uj);
  domain.last_uj = now;
}

void RaplMeter::start() {
  for (Domain& domain : domains_) {
    domain.used_uj = 0;
    domain.error.clear();
    read_domain(domain, false);
  }
}

void RaplMeter::sample() {
  for (Domain& domain : domains_) read_domain(domain, true);
}

EnergyReading RaplMeter::stop() {
  sample();
  EnergyReading reading;
  reading.skipped = skipped_;
  for (const Domain& domain : domains_) {
    if (!domain.error.empty()) {
      reading.skipped.push_back(domain.error);
      continue;
    }
    reading.joules[domain.key] = static_cast<double>(domain.used_uj) / 1e6;
  }
  return reading;
}

}  // namespace ompscale::regions
