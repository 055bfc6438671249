// Rows: the raw reads and writes a record operation needs, over either a transaction
// (row_transaction.h: reads lock the key until commit and see its own writes) or the database
// directly (the fast path for single calls that need no read-modify-write).
// Record operations are written once against this interface and serve both.
#pragma once

#include <rocksdb/utilities/transaction_db.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/buffered_iterator.h"
#include "storage/row_cache.h"
#include "storage/row_transaction.h"

namespace cairn::internal {

class Rows {
 public:
  virtual ~Rows() = default;
  // Reads the row. In a transaction, locks it until commit or rollback.
  virtual rocksdb::Status Read(const rocksdb::Slice& key, std::string* value) = 0;
  // Reads the row; in a transaction, takes a shared lock (other shared readers may proceed,
  // writers wait).
  virtual rocksdb::Status ReadShared(const rocksdb::Slice& key, std::string* value) = 0;
  // Reads the row without locking it (in a transaction, still sees its own writes).
  virtual rocksdb::Status ReadUnlocked(const rocksdb::Slice& key, std::string* value) = 0;
  virtual rocksdb::Status Write(const rocksdb::Slice& key, const rocksdb::Slice& value) = 0;
  virtual rocksdb::Status Remove(const rocksdb::Slice& key) = 0;
  // An iterator over the column family; in a transaction it also sees its writes.
  std::unique_ptr<rocksdb::Iterator> NewIterator() { return NewIterator(std::string()); }
  // The same, stopping before `upper_bound` (exclusive; "" = no bound): a scan that ends at
  // the bound does not step over the deleted keys that lie past it.
  virtual std::unique_ptr<rocksdb::Iterator> NewIterator(std::string upper_bound) = 0;
  // An iterator over the keys that start with `prefix` only: it is not Valid() past them, and
  // does not step over deleted keys beyond them to find a next key.
  std::unique_ptr<rocksdb::Iterator> NewPrefixIterator(std::string_view prefix) {
    return NewIterator(PrefixSuccessor(prefix));
  }

  // The least key greater than every key that starts with prefix ("" if there is none).
  static std::string PrefixSuccessor(std::string_view prefix) {
    std::string end(prefix);
    while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
    if (!end.empty()) end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
    return end;
  }
};

// An iterator that owns the read options (and upper bound) it was created with, since RocksDB
// keeps pointers to them for the iterator's life.
class BoundedIterator final : public rocksdb::Iterator {
 public:
  template <typename MakeIterator>
  BoundedIterator(const rocksdb::ReadOptions& options, std::string upper_bound, MakeIterator&& make)
      : options_(options), upper_bound_(std::move(upper_bound)), bound_slice_(upper_bound_) {
    if (!upper_bound_.empty()) options_.iterate_upper_bound = &bound_slice_;
    inner_.reset(make(options_));
  }

  bool Valid() const override {
    // Also checked here: an iterator over a transaction merges in its own writes, which the
    // bound may not cover.
    return inner_->Valid() && (upper_bound_.empty() || inner_->key().compare(bound_slice_) < 0);
  }
  void SeekToFirst() override { inner_->SeekToFirst(); }
  void SeekToLast() override { inner_->SeekToLast(); }
  void Seek(const rocksdb::Slice& target) override { inner_->Seek(target); }
  void SeekForPrev(const rocksdb::Slice& target) override { inner_->SeekForPrev(target); }
  void Next() override { inner_->Next(); }
  void Prev() override { inner_->Prev(); }
  rocksdb::Slice key() const override { return inner_->key(); }
  rocksdb::Slice value() const override { return inner_->value(); }
  rocksdb::Status status() const override { return inner_->status(); }

 private:
  rocksdb::ReadOptions options_;
  std::string upper_bound_;
  rocksdb::Slice bound_slice_;
  std::unique_ptr<rocksdb::Iterator> inner_;  // Declared last: destroyed before the options.
};

// The committed row of `key`: from the cache, or from the database (and then remembered);
// straight from the database without a cache (nullptr) or for a key it does not keep.
inline rocksdb::Status ReadThroughCache(RowCache* cache, rocksdb::DB& db,
                                        const rocksdb::ReadOptions& read_options,
                                        rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                                        std::string* value) {
  if (cache == nullptr || !cache->Caches(key.ToStringView())) {
    return db.Get(read_options, cf, key, value);
  }
  RowCache::Miss miss;
  switch (cache->Lookup(key.ToStringView(), value, &miss)) {
    case RowCache::Found::kRow:
      return rocksdb::Status::OK();
    case RowCache::Found::kAbsent:
      return rocksdb::Status::NotFound();
    case RowCache::Found::kMiss:
      break;
  }
  rocksdb::Status s = db.Get(read_options, cf, key, value);
  if (s.ok()) cache->Fill(miss, key.ToStringView(), *value);
  if (s.IsNotFound()) cache->Fill(miss, key.ToStringView(), std::nullopt);
  return s;
}

// Whether a transaction's writes lock each row they write.
enum class RowLocking {
  kEachRow,
  // The rows are the members of keyspace values (hash fields, sorted-set and score-index
  // rows, list items, stream entries): every operation on a value first locks its metadata
  // row exclusively (ReadCompositeRow), and no writer reaches a member row another way, so
  // that lock guards them all and a lock per member row would only cost lock-table work.
  kGuardedByMetadata,
};

// The rows of one column family as a RowTransaction sees them: its own writes first, then the
// committed rows.
class TransactionRows final : public Rows {
 public:
  // `cache`: the column family's row cache, or nullptr if it has none; `db`: the database the
  // transaction belongs to (committed rows are read from it, or the cache, once locked).
  TransactionRows(RowTransaction* txn, rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                  const rocksdb::ReadOptions& read_options, RowCache* cache,
                  RowLocking locking = RowLocking::kEachRow)
      : txn_(txn),
        db_(db),
        cf_(cf),
        read_options_(read_options),
        cache_(cache),
        lock_writes_(locking == RowLocking::kEachRow && txn->takes_locks()) {}
  ~TransactionRows() override { FinishWrites(); }
  TransactionRows(const TransactionRows&) = delete;
  TransactionRows& operator=(const TransactionRows&) = delete;

  // A locked read takes the lock alone, then reads: the transaction's own write of the key if
  // it has one, otherwise the committed row, which the lock now keeps from changing — from the
  // row cache when it holds it (commits publish what they wrote, row_transaction.h), so a key
  // written again and again is not searched for in a memtable full of its versions.
  rocksdb::Status Read(const rocksdb::Slice& key, std::string* value) override {
    return LockedRead(key, value, /*exclusive=*/true);
  }
  rocksdb::Status ReadShared(const rocksdb::Slice& key, std::string* value) override {
    return LockedRead(key, value, /*exclusive=*/false);
  }
  rocksdb::Status ReadUnlocked(const rocksdb::Slice& key, std::string* value) override {
    if (std::optional<rocksdb::Status> own = ReadOwnWrite(key, value)) return *own;
    return ReadCommitted(key, value, /*locked=*/false);
  }
  rocksdb::Status Write(const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    return Buffer(key, &value);
  }
  rocksdb::Status Remove(const rocksdb::Slice& key) override { return Buffer(key, nullptr); }
  using Rows::NewIterator;
  std::unique_ptr<rocksdb::Iterator> NewIterator(std::string upper_bound) override {
    const WriteBuffer::Writes& writes = txn_->buffer().WritesOf(cf_);
    return std::make_unique<BoundedIterator>(
        read_options_, std::move(upper_bound), [&](const rocksdb::ReadOptions& o) {
          return new BufferedIterator(std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(o, cf_)),
                                      writes, o.iterate_upper_bound);
        });
  }

  // Call after the transaction rolled back to a save point: the locks taken since were
  // released, so the committed row remembered may change.
  void ForgetRememberedRow() { remembered_ = false; }

  // Call once the transaction has committed or rolled back: the cache may again remember the
  // keys it wrote. Idempotent; the destructor calls it too.
  void FinishWrites() {
    for (std::size_t write : open_writes_) cache_->EndWrite(write);
    open_writes_.clear();
    remembered_ = false;
  }

 private:
  rocksdb::Status LockedRead(const rocksdb::Slice& key, std::string* value, bool exclusive) {
    rocksdb::Status s = txn_->Lock(cf_, key, exclusive);
    if (!s.ok()) return s;
    if (std::optional<rocksdb::Status> own = ReadOwnWrite(key, value)) return *own;
    return ReadCommitted(key, value, /*locked=*/true);
  }

  // The transaction's newest write of key, or nullopt when it has none.
  std::optional<rocksdb::Status> ReadOwnWrite(const rocksdb::Slice& key, std::string* value) {
    const WriteBuffer::Write* own = txn_->buffer().Find(cf_, key.ToStringView());
    if (own == nullptr) return std::nullopt;
    if (own->state == WriteBuffer::State::kDeleted) return rocksdb::Status::NotFound();
    value->assign(own->value.data(), own->value.size());
    return rocksdb::Status::OK();
  }

  // The committed row of a key the transaction has not written (or has undone). The last one
  // read under its lock is kept: scripts read a key again and again (GET then PEXPIRE, SET NX
  // then INCRBY then PTTL), and the lock keeps that row from changing, so the copy answers
  // them without another probe of the row cache.
  rocksdb::Status ReadCommitted(const rocksdb::Slice& key, std::string* value, bool locked) {
    if (remembered_ && key.ToStringView() == remembered_key_) {
      if (!remembered_found_) return rocksdb::Status::NotFound();
      *value = remembered_value_;
      return rocksdb::Status::OK();
    }
    rocksdb::Status s = ReadThroughCache(cache_, *db_, read_options_, cf_, key, value);
    if (locked && (s.ok() || s.IsNotFound())) {
      remembered_ = true;
      remembered_key_.assign(key.data(), key.size());
      remembered_found_ = s.ok();
      if (s.ok()) remembered_value_ = *value;
    }
    return s;
  }

  // A put of `value`, or a delete (nullptr), into the transaction's buffer, after the key's
  // lock. The first write of a key opens its cache bracket until the transaction ends: while
  // it is open the key's slot takes no fills, and lookups do not return its cached row. A
  // transaction that takes no locks needs none: it holds the keyspace's gate, so no other
  // thread reads or fills the cache until it ends, its own reads of the key find its write
  // first, and its commit publishes the new row (RowTransaction::Commit).
  rocksdb::Status Buffer(const rocksdb::Slice& key, const rocksdb::Slice* value) {
    if (lock_writes_) {
      rocksdb::Status s = txn_->Lock(cf_, key, /*exclusive=*/true);
      if (!s.ok()) return s;
    }
    WriteBuffer& buffer = txn_->buffer();
    const bool first_write = value != nullptr
                                 ? buffer.Put(cf_, key.ToStringView(), value->ToStringView())
                                 : buffer.Delete(cf_, key.ToStringView());
    if (first_write && txn_->takes_locks() && cache_ != nullptr) {
      open_writes_.push_back(cache_->BeginWrite(key.ToStringView()));  // Keys it keeps only.
    }
    return rocksdb::Status::OK();
  }

  RowTransaction* txn_;
  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* cf_;
  const rocksdb::ReadOptions& read_options_;
  RowCache* cache_;
  const bool lock_writes_;
  std::vector<std::size_t> open_writes_;  // What BeginWrite returned for its writes.
  // The committed row last read under its lock (ReadCommitted). Reads look at the
  // transaction's own writes first, so a key written since is never answered from here.
  bool remembered_ = false;
  std::string remembered_key_;
  bool remembered_found_ = false;
  std::string remembered_value_;
};

// Direct database access. Each write is atomic on its own (TransactionDB locks the key for
// it); reads do not lock.
class DbRows final : public Rows {
 public:
  // `cache`: the column family's row cache, or nullptr if it has none. `health`: refuses
  // writes while the store takes none.
  DbRows(rocksdb::TransactionDB* db, rocksdb::ColumnFamilyHandle* cf,
         const rocksdb::ReadOptions& read_options, const rocksdb::WriteOptions& write_options,
         RowCache* cache, const StorageHealth& health)
      : db_(db),
        cf_(cf),
        read_options_(read_options),
        write_options_(write_options),
        cache_(cache),
        health_(health) {}

  rocksdb::Status Read(const rocksdb::Slice& key, std::string* value) override {
    return ReadThroughCache(cache_, *db_, read_options_, cf_, key, value);
  }
  rocksdb::Status ReadShared(const rocksdb::Slice& key, std::string* value) override {
    return Read(key, value);
  }
  rocksdb::Status ReadUnlocked(const rocksdb::Slice& key, std::string* value) override {
    return Read(key, value);
  }
  rocksdb::Status Write(const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    return Written(key, [&] { return db_->Put(write_options_, cf_, key, value); });
  }
  rocksdb::Status Remove(const rocksdb::Slice& key) override {
    return Written(key, [&] { return db_->Delete(write_options_, cf_, key); });
  }
  using Rows::NewIterator;
  std::unique_ptr<rocksdb::Iterator> NewIterator(std::string upper_bound) override {
    return std::make_unique<BoundedIterator>(
        read_options_, std::move(upper_bound),
        [&](const rocksdb::ReadOptions& o) { return db_->NewIterator(o, cf_); });
  }

 private:
  template <typename Write>
  rocksdb::Status Written(const rocksdb::Slice& key, Write&& write) {
    rocksdb::Status refused = health_.CheckWrite();
    if (!refused.ok()) return refused;
    if (cache_ == nullptr) return write();
    const std::size_t opened = cache_->BeginWrite(key.ToStringView());
    rocksdb::Status s = write();
    cache_->EndWrite(opened);
    return s;
  }

  rocksdb::TransactionDB* db_;
  rocksdb::ColumnFamilyHandle* cf_;
  const rocksdb::ReadOptions& read_options_;
  const rocksdb::WriteOptions& write_options_;
  RowCache* cache_;
  const StorageHealth& health_;
};

}  // namespace cairn::internal
