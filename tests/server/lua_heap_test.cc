// LuaHeap, the allocator of a script's Lua state: blocks keep their bytes through resizes
// within and across size classes and to and from malloc's sizes, freed small blocks are
// handed out again, and many live blocks never overlap; under AddressSanitizer, the bytes of
// the pool outside live blocks cannot be touched.
#include "scripting/lua_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

namespace cairn::server::scripting {
namespace {

void Fill(void* block, std::size_t size, unsigned char seed) {
  auto* bytes = static_cast<unsigned char*>(block);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(seed + i);
}

bool Holds(const void* block, std::size_t size, unsigned char seed) {
  const auto* bytes = static_cast<const unsigned char*>(block);
  for (std::size_t i = 0; i < size; ++i) {
    if (bytes[i] != static_cast<unsigned char>(seed + i)) return false;
  }
  return true;
}

TEST(LuaHeapTest, AFreedSmallBlockIsHandedOutAgainForItsClass) {
  LuaHeap heap;
  void* a = heap.Allocate(40);
  heap.Free(a, 40);
  EXPECT_EQ(heap.Allocate(33), a) << "33 and 40 bytes share a 16-byte class";
  void* b = heap.Allocate(40);
  EXPECT_NE(b, a);
  heap.Free(b, 40);
  EXPECT_NE(heap.Allocate(64), b) << "another class";
}

TEST(LuaHeapTest, BlocksAreAlignedForAnyLuaValue) {
  LuaHeap heap;
  for (std::size_t size : {1u, 8u, 17u, 100u, 512u, 513u, 5000u}) {
    void* block = heap.Allocate(size);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % alignof(std::max_align_t), 0u) << size;
    heap.Free(block, size);
  }
}

TEST(LuaHeapTest, ResizeKeepsTheBytesItKeeps) {
  LuaHeap heap;
  // Within a class, across classes, from small to large and back, large to large.
  const std::vector<std::size_t> sizes{10, 16, 17, 200, 512, 513, 4096, 100000, 600, 24, 3};
  std::size_t size = sizes.front();
  void* block = heap.Allocate(size);
  Fill(block, size, 7);
  for (std::size_t next : sizes) {
    block = heap.Resize(block, size, next);
    ASSERT_NE(block, nullptr);
    ASSERT_TRUE(Holds(block, std::min(size, next), 7)) << size << " -> " << next;
    Fill(block, next, 7);
    size = next;
  }
  heap.Free(block, size);
}

TEST(LuaHeapTest, ManyLiveBlocksOfRandomSizesNeverOverlap) {
  LuaHeap heap;
  std::mt19937 rng(42);
  struct Live {
    void* block;
    std::size_t size;
    unsigned char seed;
  };
  std::vector<Live> live;
  std::set<void*> handed_out;
  for (int step = 0; step < 50000; ++step) {
    const int action = static_cast<int>(rng() % 10);
    if (action < 5 || live.empty()) {
      const std::size_t size = rng() % 8 == 0 ? 513 + rng() % 3000 : 1 + rng() % 512;
      void* block = heap.Allocate(size);
      ASSERT_NE(block, nullptr);
      ASSERT_TRUE(handed_out.insert(block).second) << "handed out twice";
      const auto seed = static_cast<unsigned char>(rng());
      Fill(block, size, seed);
      live.push_back({block, size, seed});
      continue;
    }
    const std::size_t at = rng() % live.size();
    Live old = live[at];
    live[at] = live.back();
    live.pop_back();
    ASSERT_TRUE(Holds(old.block, old.size, old.seed)) << "overwritten";
    handed_out.erase(old.block);
    if (action < 8) {
      heap.Free(old.block, old.size);
      continue;
    }
    const std::size_t size = 1 + rng() % 1200;
    void* block = heap.Resize(old.block, old.size, size);
    ASSERT_NE(block, nullptr);
    ASSERT_TRUE(Holds(block, std::min(old.size, size), old.seed));
    ASSERT_TRUE(handed_out.insert(block).second) << "handed out twice";
    Fill(block, size, old.seed);
    live.push_back({block, size, old.seed});
  }
  for (const Live& l : live) {
    EXPECT_TRUE(Holds(l.block, l.size, l.seed));
    heap.Free(l.block, l.size);
  }
}

#if defined(__SANITIZE_ADDRESS__)
#define CAIRN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAIRN_TEST_ASAN 1
#endif
#endif
#ifdef CAIRN_TEST_ASAN
// The pool hands out blocks of chunks it got from malloc, which ASan sees whole: the heap
// poisons what is not a live block, so that the fuzzers catch Lua's memory errors.
TEST(LuaHeapDeathTest, UnderAddressSanitizerOnlyLiveBytesCanBeTouched) {
  LuaHeap heap;
  auto* block = static_cast<volatile char*>(heap.Allocate(20));
  block[19] = 1;
  EXPECT_DEATH(block[20] = 1, "use-after-poison");  // Past its size, inside its class.
  heap.Free(const_cast<char*>(block), 20);
  EXPECT_DEATH(block[8] = 1, "use-after-poison");  // Freed.
  auto* again = static_cast<volatile char*>(heap.Allocate(24));
  again[23] = 1;  // Handed out again: live.
}
#endif

}  // namespace
}  // namespace cairn::server::scripting
