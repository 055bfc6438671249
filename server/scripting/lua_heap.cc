#include "scripting/lua_heap.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace cairn::server::scripting {

LuaHeap::~LuaHeap() {
  for (void* chunk : chunks_) std::free(chunk);
}

void* LuaHeap::Carve(std::size_t klass) {
  const std::size_t bytes = (klass + 1) * kGranule;
  if (static_cast<std::size_t>(end_ - next_) < bytes) {
    // The rest of the old chunk (less than one block of this class) is left unused.
    void* chunk = std::malloc(kChunkBytes);
    if (chunk == nullptr) return nullptr;
    chunks_.push_back(chunk);
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
  if (FreeBlock* block = free_[klass]) {
    free_[klass] = block->next;
    return block;
  }
  return Carve(klass);
}

void LuaHeap::Free(void* block, std::size_t size) {
  if (block == nullptr) return;
  if (!Small(size)) return std::free(block);
  const std::size_t klass = ClassOf(size);
  auto* freed = static_cast<FreeBlock*>(block);
  freed->next = free_[klass];
  free_[klass] = freed;
}

void* LuaHeap::Resize(void* block, std::size_t old_size, std::size_t new_size) {
  if (!Small(old_size) && !Small(new_size)) return std::realloc(block, new_size);
  if (Small(old_size) && Small(new_size) && ClassOf(old_size) == ClassOf(new_size)) return block;
  void* moved = Allocate(new_size);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, block, std::min(old_size, new_size));
  Free(block, old_size);
  return moved;
}

}  // namespace cairn::server::scripting
