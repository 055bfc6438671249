// LuaHeap: the memory of one Lua state. Small blocks (Lua's strings, tables, closures: most
// of a script's allocations, each freed by the collector soon after) come from free lists by
// size class, carved out of chunks; larger ones from malloc.
//
// Why: under BullMQ a script allocates and frees a few hundred small blocks, and malloc and
// free took about 4% of cairn-server's time: free has to find each block's size, which Lua
// already passes. A free list per class needs neither a lookup nor an atomic step.
//
// A freed small block stays in its list for the next block of its class; the chunks go back
// to the system only with the state. So the heap keeps the state's peak of small blocks, which
// the script memory limit (VmState::limit) bounds. One thread at a time, as a Lua state is.
// (AddressSanitizer sees the chunks, not the blocks: Lua's own use of them goes unchecked.)
#pragma once

#include <cstddef>
#include <vector>

namespace cairn::server::scripting {

class LuaHeap {
 public:
  LuaHeap() = default;
  ~LuaHeap();
  LuaHeap(const LuaHeap&) = delete;
  LuaHeap& operator=(const LuaHeap&) = delete;

  // A block of `size` (> 0) bytes, or nullptr when the system has no memory.
  void* Allocate(std::size_t size);
  // `size`: what the block was allocated (or last resized) with.
  void Free(void* block, std::size_t size);
  // The block with `new_size` (> 0) bytes, its first bytes kept; nullptr (and the old block
  // left as it was) when the system has no memory.
  void* Resize(void* block, std::size_t old_size, std::size_t new_size);

 private:
  static constexpr std::size_t kGranule = 16;
  static constexpr std::size_t kMaxSmall = 512;
  static constexpr std::size_t kClasses = kMaxSmall / kGranule;
  static constexpr std::size_t kChunkBytes = 64 * 1024;

  struct FreeBlock {
    FreeBlock* next;
  };

  static bool Small(std::size_t size) { return size <= kMaxSmall; }
  static std::size_t ClassOf(std::size_t size) { return (size - 1) / kGranule; }

  void* Carve(std::size_t klass);

  FreeBlock* free_[kClasses] = {};
  char* next_ = nullptr;  // The unused rest of the newest chunk.
  char* end_ = nullptr;
  std::vector<void*> chunks_;
};

}  // namespace cairn::server::scripting
