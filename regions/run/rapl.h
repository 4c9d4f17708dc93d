#pragma once
// Energy from RAPL through the powercap sysfs tree: every ROOT/intel-rapl:* zone (packages, and
// their core/uncore/dram sub-zones) with a readable energy_uj. The counters wrap at
// max_energy_range_uj; the meter samples while the application runs (sample() about once a
// second) so that a wrap between two samples is recognised and added back.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ompscale::regions {

/// The powercap root: $OMPSCAN_POWERCAP_ROOT (tests point it at a fixture tree), else
/// /sys/class/powercap.
std::string default_powercap_root();

/// One measurement: joules per zone, keyed "package-0", "package-0/core", ..., and the zones left
/// out, each with its reason.
struct EnergyReading {
  std::map<std::string, double> joules;
  std::vector<std::string> skipped;
};

class RaplMeter {
 public:
  /// Finds the zones under `root`. Never throws: zones that cannot be used are listed by
  /// skipped(), and with none usable available() is false and reason() says why.
  explicit RaplMeter(const std::string& root);

  bool available() const { return !domains_.empty(); }
  /// Why no energy is measured, e.g. "no /sys/class/powercap/intel-rapl:* zones (...)".
  const std::string& reason() const { return reason_; }
  /// Zones left out, each "intel-rapl:1 (package-1): cannot read energy_uj: Permission denied".
  const std::vector<std::string>& skipped() const { return skipped_; }

  /// Starts a measurement: reads every zone.
  void start();
  /// Adds what each zone used since the last reading, across a wrap.
  void sample();
  /// Samples a last time and returns the measurement. A zone that became unreadable during it is
  /// left out with its reason.
  EnergyReading stop();

 private:
  struct Domain {
    std::string key;    // "package-0", "package-0/dram"
    std::string label;  // "intel-rapl:0:2 (dram)", for messages
    std::string energy_path;
    std::uint64_t range_uj = 0;  // max_energy_range_uj: the counter wraps to 0 there
    std::uint64_t last_uj = 0;
    std::uint64_t used_uj = 0;
    std::string error;  // set when a reading failed during the measurement
  };
  void read_domain(Domain& domain, bool accumulate);

  std::vector<Domain> domains_;
  std::vector<std::string> skipped_;
  std::string reason_;
};

/// Energy used between two readings of a counter that wraps to 0 at `range_uj`.
std::uint64_t energy_delta_uj(std::uint64_t before, std::uint64_t after, std::uint64_t range_uj);

}  // namespace ompscale::regions
