#pragma once
// What a region is, shared by the OMPT tool that records regions (regions/ompt/) and the report
// that reads its profiles (regions/report): one enum, so the two cannot drift apart.

#include <cstdint>

namespace ompscale::regions {

/// An OpenMP parallel region, a region the application marked by hand (ompscan_region_begin),
/// or the master's serial time between regions (report only: the tool writes it as SERIAL
/// records, not as a region of its own).
enum class RegionKind : std::uint8_t { kParallel, kManual, kSerial };

}  // namespace ompscale::regions
