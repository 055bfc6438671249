// WriteBuffer: the writes of one transaction, kept in memory until it commits.
//
// Why not RocksDB's WriteBatchWithIndex, where a rocksdb::Transaction keeps its writes: each
// write there appends to a batch and searches a skiplist twice, with a comparator that decodes
// every entry's key out of the batch; a read of a key the transaction may have written searches
// it again, and the commit replays every write, the many versions of a key the server's pass
// batch rewrites included. Under BullMQ that index was 18% of the server's CPU. Here a key has
// one entry, its newest write, in a sorted map per column family: a read finds it with one
// search, an iterator merges the map into the database's rows (buffered_iterator.h), and the
// commit writes each key once. Entries and their bytes come from an arena that the transaction
// frees at once when it ends.
//
// Save points: while one is set, every write first logs what the entry held, and a rollback
// restores entries from the log, newest first. Entries are never removed before Clear (an
// undone first write leaves its entry kUnwritten), so map iterators stay valid while the
// transaction runs, and "first write of a key" (Put's return) is asked once per transaction.
// Not thread-safe: a transaction is used by one thread at a time.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::internal {

class WriteBuffer {
 public:
  enum class State : std::uint8_t {
    kUnwritten,  // Written, then undone by a rollback to a save point.
    kPut,
    kDeleted,
  };
  struct Write {
    State state = State::kUnwritten;
    std::pmr::string value;  // The row put (kPut).
  };
  // Keys in RocksDB's bytewise order (std::string compares bytes as unsigned char).
  using Writes = std::pmr::map<std::pmr::string, Write, std::less<>>;

  WriteBuffer();
  WriteBuffer(const WriteBuffer&) = delete;
  WriteBuffer& operator=(const WriteBuffer&) = delete;

  // Record the newest write of `key`. True when the transaction had not written the key
  // before (in any state).
  bool Put(rocksdb::ColumnFamilyHandle* cf, std::string_view key, std::string_view value);
  bool Delete(rocksdb::ColumnFamilyHandle* cf, std::string_view key);

  // The newest write of `key`, or nullptr if the transaction has none (kUnwritten included).
  const Write* Find(rocksdb::ColumnFamilyHandle* cf, std::string_view key) const;

  // Every entry of one column family, for an iterator to merge in. The reference stays valid,
  // and shows later writes, until Clear.
  const Writes& WritesOf(rocksdb::ColumnFamilyHandle* cf);

  void SetSavePoint();
  // Undoes the writes since the newest save point, and drops it. NotFound if there is none.
  rocksdb::Status RollbackToSavePoint();
  // Drops the newest save point, keeping its writes. NotFound if there is none.
  rocksdb::Status PopSavePoint();

  // Appends the newest write of every key to `batch`; returns how many it appended.
  std::size_t AppendTo(rocksdb::WriteBatch& batch) const;
  // About the bytes AppendTo adds (an upper bound while no key was written twice).
  std::size_t batch_bytes() const { return batch_bytes_; }
  // Calls fn(cf, key, const Write&) for every key written (not kUnwritten).
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const Family& family : families_) {
      for (const auto& [key, write] : family.writes) {
        if (write.state != State::kUnwritten) fn(family.cf, std::string_view(key), write);
      }
    }
  }

  // Forgets every write and save point, and frees the arena.
  void Clear();

  // Bytes of memory the buffer took from the heap for its writes and their undo log (beyond
  // its inline first block): what a caller bounds to keep a long transaction — a script that
  // rewrites a large value under a save point — from holding memory without limit.
  std::size_t heap_bytes() const { return counting_.bytes() + value_bytes_; }

 private:
  struct Family {
    rocksdb::ColumnFamilyHandle* cf;
    Writes writes;
  };
  struct Undo {
    Writes::iterator entry;
    State state;
    std::pmr::string value;
  };

  Writes* Existing(rocksdb::ColumnFamilyHandle* cf) const;
  Writes& Of(rocksdb::ColumnFamilyHandle* cf);
  // The entry of `key`, created kUnwritten if new (then *created is set), its state logged
  // for the newest save point if one is set.
  Writes::iterator Entry(rocksdb::ColumnFamilyHandle* cf, std::string_view key, bool* created);

  // The heap, counting what the arena holds of it.
  class CountingResource final : public std::pmr::memory_resource {
   public:
    std::size_t bytes() const { return bytes_; }

   private:
    void* do_allocate(std::size_t bytes, std::size_t alignment) override {
      void* p = std::pmr::new_delete_resource()->allocate(bytes, alignment);
      bytes_ += bytes;
      return p;
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
      std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
      bytes_ -= bytes;
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
      return this == &other;
    }
    std::size_t bytes_ = 0;
  };

  CountingResource counting_;
  // A small transaction's writes fit here without a call to the allocator.
  alignas(std::max_align_t) std::byte initial_[2048];
  std::pmr::monotonic_buffer_resource arena_{initial_, sizeof initial_, &counting_};
  // Few: one per column family the transaction wrote or iterated. A list keeps each map where
  // it is, for the iterators that hold it.
  std::pmr::list<Family> families_{&arena_};
  std::pmr::vector<Undo> undo_{&arena_};
  std::vector<std::size_t> save_points_;  // undo_'s size at each, oldest first.
  std::size_t batch_bytes_ = 0;
  // Heap bytes of the values in writes_ and undo_ (they are allocated apart from the arena).
  std::size_t value_bytes_ = 0;
};

}  // namespace cairn::internal
