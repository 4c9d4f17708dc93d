#pragma once
// The tool's memory, kept off the application's heap.
//
// Objects the tool makes while the application runs (thread states, regions, instances, the
// statistics a full buffer is first aggregated into, code locations) would otherwise sit on the
// application's malloc heap, above whatever the application allocated just before: glibc then
// cannot give the application's freed arrays back to the system, its page faults and system time
// drop, and it runs differently (LULESH at one thread: 3,353 minor faults instead of 144,920, 12%
// faster) than without the tool. So the tool takes its memory from the system (mmap) in chunks of
// its own: operator new and delete are replaced inside libompscan.so (its C++ library is linked in
// statically and its symbols are local, so the replacement binds only the tool's own code, the
// libstdc++ containers it uses included), and the few C allocations it made (strdup, realpath)
// use these functions too.
//
// Small blocks (up to 64 KiB) come from per-size-class free lists carved out of 1 MiB chunks,
// aligned to 1 MiB so a block finds its chunk's header by masking its address; larger ones are
// mappings of their own with the same header. Blocks are never given back to the system while
// the process runs (the tool keeps what it makes until exit), only to their free list. A spin
// lock guards the lists: allocation happens at thread starts, at regions' first executions and
// while aggregating, never on the hot paths. fork() takes it (tool.cc), so a child never
// inherits it held.

#include <cstddef>

namespace ompscale::regions::ompt {

/// `size` bytes aligned to `alignment` (a power of two up to 4096), from the tool's own mappings;
/// null when the system has no memory left.
void* tool_allocate(std::size_t size, std::size_t alignment = alignof(std::max_align_t));

/// Returns a block of tool_allocate() (null is ignored).
void tool_free(void* block);

/// A copy of `text` in the tool's memory; null when out of memory.
char* tool_strdup(const char* text);

/// Held across fork() by the tool's atfork handlers.
void lock_tool_memory();
void unlock_tool_memory();

}  // namespace ompscale::regions::ompt
