#include "regions/ompt/region_table.h"

#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "regions/ompt/memory.h"
#include "regions/ompt/spin_lock.h"

namespace ompscale::regions::ompt {
namespace {

// Twice kMaxRegions, so probes stay short.
constexpr std::uint32_t kSlots = 2 * kMaxRegions;

// Keys: a parallel region's codeptr (user-space addresses are below 2^47; a null codeptr gets
// kNullCodeptrKey), a manual region's name hash with the top bit set. 0 marks a free slot.
constexpr std::uint64_t kNullCodeptrKey = 1ull << 62;
constexpr std::uint64_t kManualKeyBit = 1ull << 63;

// Zero-initialized statics without destructors: usable before and after static construction
// and destruction alike.
std::atomic<std::uint64_t> slot_keys[kSlots];
std::atomic<Region*> slot_regions[kSlots];
std::atomic<Region*> regions_by_id[kMaxRegions];
std::atomic<std::uint32_t> next_id{0};
std::atomic<std::uint64_t> dropped{0};

std::uint64_t parallel_key(const void* codeptr) {
  const auto key = reinterpret_cast<std::uintptr_t>(codeptr);
  return key == 0 ? kNullCodeptrKey : key;
}

std::uint64_t manual_key(const char* name) {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
  for (const char* c = name; *c != '\0'; ++c) {
    hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3ull;
  }
  return hash | kManualKeyBit;
}

std::uint32_t home_slot(std::uint64_t key) {
  return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 40) & (kSlots - 1);
}

Region* create(RegionKind kind, const void* codeptr, const char* name, std::uint32_t parent) {
  const std::uint32_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  if (id >= kMaxRegions) return nullptr;
  auto* region = new (std::nothrow) Region;
  if (region == nullptr) return nullptr;
  region->id = id;
  region->kind = kind;
  region->codeptr = codeptr;
  if (name != nullptr) {
    region->name = tool_strdup(name);
    if (region->name == nullptr) region->name = "";
  }
  if (parent != kNoRegion) {
    if (const Region* enclosing = region_by_id(parent)) {
      region->parent = parent;
      region->level = enclosing->level + 1;
    }
  }
  if (kind == RegionKind::kParallel) {
    auto* location = new (std::nothrow) CodeLocation;
    if (location != nullptr && capture_code_location(codeptr, *location)) {
      region->location = location;
    } else {
      delete location;
    }
  }
  regions_by_id[id].store(region, std::memory_order_release);
  return region;
}

// The region published in `slot` (claimed with `key`), waiting briefly for its creator to
// publish it. Null if it never appears (creation failed, or a fork() child inherited a claimed
// slot whose creator does not exist there).
Region* wait_published(std::uint32_t slot) {
  // Creation captures the code location (a walk of the loaded objects): allow it tens of
  // milliseconds, yielding so an oversubscribed creator gets the core.
  for (int spin = 0; spin < (1 << 18); ++spin) {
    if (Region* region = slot_regions[slot].load(std::memory_order_acquire)) return region;
    if (spin % 256 == 255) {
      sched_yield();
    } else {
      cpu_relax();
    }
  }
  return nullptr;
}

Region* find(std::uint64_t key, RegionKind kind, const void* codeptr, const char* name,
             std::uint32_t parent) {
  std::uint32_t slot = home_slot(key);
  for (std::uint32_t probe = 0; probe < kSlots; ++probe, slot = (slot + 1) & (kSlots - 1)) {
    std::uint64_t seen = slot_keys[slot].load(std::memory_order_acquire);
    if (seen == 0) {
      if (slot_keys[slot].compare_exchange_strong(seen, key, std::memory_order_acq_rel)) {
        Region* region = create(kind, codeptr, name, parent);
        if (region == nullptr) {
          dropped.fetch_add(1, std::memory_order_relaxed);
          return nullptr;  // the slot stays claimed and unpublished: later lookups fail too
        }
        slot_regions[slot].store(region, std::memory_order_release);
        return region;
      }
      // Another thread claimed the slot first: `seen` now holds its key.
    }
    if (seen != key) continue;
    Region* region = wait_published(slot);
    if (region == nullptr) {
      dropped.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    // Equal name hashes of different names: keep probing.
    if (kind == RegionKind::kManual && std::strcmp(region->name, name) != 0) continue;
    return region;
  }
  dropped.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

}  // namespace

std::uint8_t site_of(Region& region, const void* codeptr, std::uint8_t kind) {
  const std::uint64_t key = site_key(codeptr, kind);
  for (std::uint8_t i = 0; i < kMaxSites; ++i) {
    std::uint64_t seen = region.sites[i].load(std::memory_order_acquire);
    if (seen == 0 &&
        region.sites[i].compare_exchange_strong(seen, key, std::memory_order_acq_rel)) {
      return i;
    }
    if (seen == key) return i;
  }
  return kNoSite;
}

std::string schedule_text(std::uint64_t encoded) {
  if (encoded == 0) return "";
  const auto kind = static_cast<std::uint32_t>((encoded >> 32) & 0x7fffffffu);
  const auto chunk = static_cast<std::uint32_t>(encoded);
  // omp_sched_t: static 1, dynamic 2, guided 3, auto 4.
  static constexpr const char* kNames[] = {nullptr, "static", "dynamic", "guided", "auto"};
  if (kind == 0 || kind > 4) return "";
  std::string text = kNames[kind];
  if (chunk > 0 && kind != 4) text += "," + std::to_string(chunk);
  return text;
}

Region* find_parallel_region(const void* codeptr, std::uint32_t parent) {
  return find(parallel_key(codeptr), RegionKind::kParallel, codeptr, nullptr, parent);
}

Region* find_manual_region(const char* name, std::uint32_t parent) {
  return find(manual_key(name), RegionKind::kManual, nullptr, name, parent);
}

Region* region_by_id(std::uint32_t id) {
  return id < kMaxRegions ? regions_by_id[id].load(std::memory_order_acquire) : nullptr;
}

std::uint32_t region_count() {
  const std::uint32_t count = next_id.load(std::memory_order_acquire);
  return count < kMaxRegions ? count : kMaxRegions;
}

std::uint64_t regions_dropped() {
  return dropped.load(std::memory_order_relaxed);
}

}  // namespace ompscale::regions::ompt
