#pragma once
// Writes the tool profile (docs/ompscan-formats.md, "Tool profile") at finalize.
//
// Runs after the tool library's static destructors and possibly while other threads still run
// callbacks (exit() inside a region): it takes the aggregation lock (giving up rather than
// hanging the exit), aggregates every thread's published records and pending counts, resolves
// code locations, and writes `path`.tmp then renames it to `path`, so a profile is whole or
// absent. Additions to the documented format: see profile_writer.cc.

#include <cstdint>

namespace ompscale::regions::ompt {

/// Writes the profile to `path` for a run that ends at `end_ticks`. Never throws; false when
/// nothing was written.
bool write_profile(const char* path, std::uint64_t end_ticks);

}  // namespace ompscale::regions::ompt
