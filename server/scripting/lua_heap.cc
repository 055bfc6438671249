#include "scripting/lua_heap.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#define CAIRN_LUA_HEAP_POISON 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAIRN_LUA_HEAP_POISON 1
#endif
#endif
#ifdef CAIRN_LUA_HEAP_POISON
#include <sanitizer/asan_interface.h>
#endif

namespace cairn::server::scripting {
namespace {

// Under AddressSanitizer the bytes of a chunk that are not part of a live block — the rest of
// a chunk, a free block, the rounding of a block up to its class — are poisoned, so that Lua's
// own use of its blocks is checked as malloc's would be: a read past a string's end or of a
// freed table is reported, not served from the pool. (The fuzz targets rely on it.)
void Poison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) {
#ifdef CAIRN_LUA_HEAP_POISON
  ASAN_POISON_MEMORY_REGION(p, bytes);
#endif
}
void Unpoison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) {
#ifdef CAIRN_LUA_HEAP_POISON
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#endif
}

}  // namespace

LuaHeap::~LuaHeap() {
  for (void* chunk : chunks_) {
    Unpoison(chunk, kChunkBytes);
    std::free(chunk);
  }
}

void* LuaHeap::Carve(std::size_t klass) {
  const std::size_t bytes = (klass + 1) * kGranule;
  if (static_cast<std::size_t>(end_ - next_) < bytes) {
    // The rest of the old chunk (less than one block of this class) is left unused.
    void* chunk = std::malloc(kChunkBytes);
    if (chunk == nullptr) return nullptr;
    chunks_.push_back(chunk);
    Poison(chunk, kChunkBytes);
    next_ = static_cast<char*>(chunk);
    end_ = next_ + kChunkBytes;
  }
  void* block = next_;
  next_ += bytes;
  return block;
}

void* LuaHeap::Allocate(std::size_t size) {
  if (!Small(size)) return std::malloc(size);
  const std::size_t klass = ClassOf(size);
  void* block = nullptr;
  if (FreeBlock* free = free_[klass]) {
    Unpoison(free, sizeof(FreeBlock));
    free_[klass] = free->next;
    Poison(free, sizeof(FreeBlock));
    block = free;
  } else {
    block = Carve(klass);
  }
  if (block != nullptr) Unpoison(block, size);
  return block;
}

void LuaHeap::Free(void* block, std::size_t size) {
  if (block == nullptr) return;
  if (!Small(size)) return std::free(block);
  const std::size_t klass = ClassOf(size);
  Unpoison(block, sizeof(FreeBlock));
  auto* freed = static_cast<FreeBlock*>(block);
  freed->next = free_[klass];
  free_[klass] = freed;
  Poison(block, (klass + 1) * kGranule);
}

void* LuaHeap::Resize(void* block, std::size_t old_size, std::size_t new_size) {
  if (!Small(old_size) && !Small(new_size)) return std::realloc(block, new_size);
  if (Small(old_size) && Small(new_size) && ClassOf(old_size) == ClassOf(new_size)) {
    Poison(block, (ClassOf(old_size) + 1) * kGranule);
    Unpoison(block, new_size);
    return block;
  }
  void* moved = Allocate(new_size);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, block, std::min(old_size, new_size));
  Free(block, old_size);
  return moved;
}

}  // namespace cairn::server::scripting
