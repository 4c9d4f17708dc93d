#pragma once
// The fixed-size record a callback appends to its thread's buffer: one completed interval (or a
// batch of counts), with durations already taken as TSC tick differences. Pairing begin and end
// in the callbacks (the begin stamp waits in the thread's context) halves the records and lets a
// buffer be aggregated alone, by whichever thread holds it.
//
// Cross-thread quantities (a barrier's last arrival and first departure) are resolved before the
// record is written (instance.h), so no record refers to another thread's records.

#include <cstdint>
#include <type_traits>

namespace ompscale::regions::ompt {

enum class RecordType : std::uint8_t {
  kInstance = 1,  // a measured execution ended (master): a = wall ticks, b = team size,
                  // c = the team's ticks not working (instance.cc, slot_work)
  kSpan,          // a thread's part of it: a = implicit-task begin -> end arrival, b = fork ticks
                  // (parallel begin -> implicit-task begin), c = task ticks inside the end barrier
  kBarrier,       // one barrier of one thread: a = imbalance, b = walkthrough, c = startup ticks;
                  // sub = wait_sub(kWaitInnerBarrier or kWaitEndBarrier, its construct site)
  kLock,          // one timed acquisition: a = codeptr, b = lock_wait_field(acquire -> acquired,
                  // acquisitions it stands for), c = acquired -> released (0 when the release was
                  // not seen); sub = ompt_mutex_t
  kLockCount,     // acquisitions counted at one site: a = codeptr, b = count; sub = ompt_mutex_t
  kLoop,          // one worksharing construct of one thread: a = codeptr, b = ticks, c = the
                  // runtime's count (iterations); sub = ompt_work_t (single_other folded into
                  // single_executor: one construct)
  kTasks,         // explicit tasks of one thread: a = created, b = completed, c = ticks running
  kMasked,        // one masked construct: a = ticks
  kSerial,        // master's time outside parallel regions before `region`: a = ticks
  kManual,        // one manual region execution: a = ticks
  kTaskWait,      // explicit tasks at one barrier or taskwait of one thread: a = ticks waiting for
                  // tasks to end without running one, b = ticks running them;
                  // sub = wait_sub(kWait*, its construct site)
  kTeamStart,     // one thread of an execution in which the runtime started threads: a = ticks it
                  // waited for the team to start; sub = kTeamStartFork (its fork),
                  // kTeamStartCpuWait (its wait for a CPU before the first barrier) or the wait
                  // kind of the first barrier (its wait there before the last arrival)
};

// Where a barrier or task_wait record's thread waited (the record's sub).
inline constexpr std::uint8_t kWaitInnerBarrier = 0;  // a barrier inside the region
inline constexpr std::uint8_t kWaitEndBarrier = 1;    // the region's end barrier
inline constexpr std::uint8_t kWaitTaskwait = 2;      // a taskwait or the end of a taskgroup
inline constexpr std::uint8_t kTeamStartFork = 3;     // a team start record's fork part
// A team start record's wait for a CPU while working, before the first barrier (inside the span,
// outside any barrier): new threads that share a CPU until the kernel moves them.
inline constexpr std::uint8_t kTeamStartCpuWait = 4;

// A barrier or task_wait record's sub: the wait kind (2 bits) and the construct site inside the
// region it belongs to (6 bits, region_table.h: site_of()).
constexpr std::uint8_t wait_sub(std::uint8_t wait, std::uint8_t site) {
  return static_cast<std::uint8_t>(wait | (site << 2));
}
constexpr std::uint8_t wait_of(std::uint8_t sub) {
  return sub & 3;
}
constexpr std::uint8_t site_in(std::uint8_t sub) {
  return sub >> 2;
}

// A record's `region` field: the region's id (region_table.h, below 2^24) and, in the top 8 bits,
// log2 of the sampling period its execution was measured at (sampling.h): the record's values
// stand for 2^k executions' (its Horvitz-Thompson weight).
inline constexpr unsigned kRegionIdBits = 24;
constexpr std::uint32_t record_region(std::uint32_t id, unsigned log2_weight) {
  return (id & ((1u << kRegionIdBits) - 1)) | (log2_weight << kRegionIdBits);
}
constexpr std::uint32_t region_id_of(std::uint32_t field) {
  return field & ((1u << kRegionIdBits) - 1);
}
constexpr std::uint64_t weight_of(std::uint32_t field) {
  return 1ull << (field >> kRegionIdBits);
}

// No member initializers: append() writes every field, and a new thread's 256 KiB buffer stays
// untouched (no page faults) until it is used.
struct Record {
  std::uint64_t a;
  std::uint64_t b;
  std::uint64_t c;
  std::uint32_t region;  // record_region(): the region id and the sampling weight
  std::uint16_t thread;  // thread number within the team (0 outside parallel regions)
  RecordType type;
  std::uint8_t sub;
};
static_assert(sizeof(Record) == 32, "records are half a cache line");
static_assert(std::is_trivially_default_constructible_v<Record>);

/// The b field of a lock record: the wait in ticks (below 2^48, 39 hours at 2 GHz) and, in the
/// top 16 bits, the number of acquisitions the timed one stands for (the gap to the next timed
/// one, at most 1.5 sampling periods), so the aggregation can weight it.
inline constexpr std::uint64_t kMaxLockWeight = 0xFFFF;
constexpr std::uint64_t lock_wait_field(std::uint64_t wait_ticks, std::uint64_t weight) {
  return (wait_ticks & ((1ull << 48) - 1)) |
         ((weight < kMaxLockWeight ? weight : kMaxLockWeight) << 48);
}
constexpr std::uint64_t lock_wait_ticks(std::uint64_t b) {
  return b & ((1ull << 48) - 1);
}
constexpr std::uint64_t lock_weight(std::uint64_t b) {
  return b >> 48;
}

/// later - earlier in ticks, or 0 when earlier > later: stamps of different cores may be a few
/// ticks apart.
constexpr std::uint64_t ticks_between(std::uint64_t earlier, std::uint64_t later) {
  return later > earlier ? later - earlier : 0;
}

}  // namespace ompscale::regions::ompt
