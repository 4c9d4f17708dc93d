#include "regions/ompt/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <new>

#include "regions/ompt/spin_lock.h"

namespace ompscale::regions::ompt {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;  // chunks and their alignment
constexpr std::size_t kHeader = 64;                   // at every chunk's start
constexpr unsigned kMinClassLog2 = 4;                 // 16 bytes
constexpr unsigned kMaxClassLog2 = 16;                // 64 KiB
constexpr unsigned kClasses = kMaxClassLog2 - kMinClassLog2 + 1;
constexpr std::uint64_t kMagic = 0x6f6d707363616e4dull;  // "ompscanM"
constexpr std::uint64_t kLarge = ~0ull;

// At the start of every 1 MiB-aligned chunk (or large mapping).
struct ChunkHeader {
  std::uint64_t magic;
  std::uint64_t size_class;  // log2 of the block size, or kLarge
  void* mapping;             // what mmap returned (large ones: to unmap)
  std::size_t mapped;        // its length
};
static_assert(sizeof(ChunkHeader) <= kHeader);

struct FreeBlock {
  FreeBlock* next;
};

// Zero-initialized, trivially destructible: usable before static construction and after
// destruction (the runtime calls finalize late).
SpinLock lock;
FreeBlock* free_lists[kClasses];
char* carve_next[kClasses];  // the next unused block of the class's current chunk
char* carve_end[kClasses];

// `size` bytes at a kChunk-aligned address, with the header filled in; null when out of memory.
ChunkHeader* map_aligned(std::size_t size, std::uint64_t size_class) {
  const std::size_t length = size + kChunk;
  void* mapping = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(mapping);
  const std::uintptr_t aligned = (start + kChunk - 1) & ~(kChunk - 1);
  // Trim the unaligned head and the tail beyond `size` (whole pages: munmap wants a page-aligned
  // start), so only the aligned part stays mapped.
  if (aligned > start) munmap(mapping, aligned - start);
  const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t end = (aligned + size + page - 1) & ~(page - 1);
  if (start + length > end) munmap(reinterpret_cast<void*>(end), start + length - end);
  auto* header = reinterpret_cast<ChunkHeader*>(aligned);
  header->magic = kMagic;
  header->size_class = size_class;
  header->mapping = header;
  header->mapped = size;
  return header;
}

void* allocate_small(unsigned size_class) {
  const unsigned index = size_class - kMinClassLog2;
  if (FreeBlock* block = free_lists[index]) {
    free_lists[index] = block->next;
    return block;
  }
  const std::size_t block_size = std::size_t{1} << size_class;
  if (carve_next[index] == nullptr || carve_next[index] + block_size > carve_end[index]) {
    ChunkHeader* chunk = map_aligned(kChunk, size_class);
    if (chunk == nullptr) return nullptr;
    // The first block holds the header: blocks start at a multiple of their size past it.
    const std::size_t first = block_size >= kHeader ? block_size : kHeader;
    carve_next[index] = reinterpret_cast<char*>(chunk) + first;
    carve_end[index] = reinterpret_cast<char*>(chunk) + kChunk;
  }
  void* block = carve_next[index];
  carve_next[index] += block_size;
  return block;
}

ChunkHeader* header_of(void* block) {
  return reinterpret_cast<ChunkHeader*>(reinterpret_cast<std::uintptr_t>(block) & ~(kChunk - 1));
}

}  // namespace

void* tool_allocate(std::size_t size, std::size_t alignment) {
  if (alignment > 4096) return nullptr;
  const std::size_t needed = std::max({size, alignment, std::size_t{1}});
  if (needed <= (std::size_t{1} << kMaxClassLog2)) {
    const auto size_class =
        std::max<unsigned>(kMinClassLog2, static_cast<unsigned>(std::bit_width(needed - 1)));
    lock.lock();
    void* block = allocate_small(size_class);
    lock.unlock();
    return block;
  }
  // Large: a mapping of its own, the block after the header (aligned to `alignment`).
  const std::size_t offset = std::max(kHeader, alignment);
  ChunkHeader* header = map_aligned(offset + size, kLarge);
  return header == nullptr ? nullptr : reinterpret_cast<char*>(header) + offset;
}

void tool_free(void* block) {
  if (block == nullptr) return;
  ChunkHeader* header = header_of(block);
  if (header->magic != kMagic) return;  // not the tool's: leave it alone
  if (header->size_class == kLarge) {
    munmap(header->mapping, header->mapped);
    return;
  }
  lock.lock();
  auto* free_block = static_cast<FreeBlock*>(block);
  const auto index = static_cast<unsigned>(header->size_class) - kMinClassLog2;
  free_block->next = free_lists[index];
  free_lists[index] = free_block;
  lock.unlock();
}

char* tool_strdup(const char* text) {
  const std::size_t length = std::strlen(text) + 1;
  auto* copy = static_cast<char*>(tool_allocate(length, 1));
  if (copy != nullptr) std::memcpy(copy, text, length);
  return copy;
}

void lock_tool_memory() {
  lock.lock();
}

void unlock_tool_memory() {
  lock.unlock();
}

}  // namespace ompscale::regions::ompt

// operator new and delete of the tool's own code (hidden: the version script exports none, so
// the application's and the runtime's allocations are untouched).

namespace {

using ompscale::regions::ompt::tool_allocate;
using ompscale::regions::ompt::tool_free;

void* allocate_or_throw(std::size_t size, std::size_t alignment) {
  void* block = tool_allocate(size, alignment);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

}  // namespace

void* operator new(std::size_t size) {
  return allocate_or_throw(size, __STDCPP_DEFAULT_NEW_ALIGNMENT__);
}
void* operator new[](std::size_t size) {
  return allocate_or_throw(size, __STDCPP_DEFAULT_NEW_ALIGNMENT__);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return tool_allocate(size, __STDCPP_DEFAULT_NEW_ALIGNMENT__);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return tool_allocate(size, __STDCPP_DEFAULT_NEW_ALIGNMENT__);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return tool_allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return tool_allocate(size, static_cast<std::size_t>(alignment));
}
void operator delete(void* block) noexcept {
  tool_free(block);
}
void operator delete[](void* block) noexcept {
  tool_free(block);
}
void operator delete(void* block, std::size_t) noexcept {
  tool_free(block);
}
void operator delete[](void* block, std::size_t) noexcept {
  tool_free(block);
}
void operator delete(void* block, std::align_val_t) noexcept {
  tool_free(block);
}
void operator delete[](void* block, std::align_val_t) noexcept {
  tool_free(block);
}
void operator delete(void* block, std::size_t, std::align_val_t) noexcept {
  tool_free(block);
}
void operator delete[](void* block, std::size_t, std::align_val_t) noexcept {
  tool_free(block);
}
void operator delete(void* block, const std::nothrow_t&) noexcept {
  tool_free(block);
}
void operator delete[](void* block, const std::nothrow_t&) noexcept {
  tool_free(block);
}
