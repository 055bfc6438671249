// Rows: the raw reads and writes a record operation needs, over either a RocksDB transaction
// (reads lock the key until commit; reads see the transaction's own writes) or the database
// directly (the fast path for single calls that need no read-modify-write).
// Record operations are written once against this interface and serve both.
#pragma once

#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <memory>
#include <string>

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
  virtual std::unique_ptr<rocksdb::Iterator> NewIterator() = 0;
};

class TransactionRows final : public Rows {
 public:
  TransactionRows(rocksdb::Transaction* txn, rocksdb::ColumnFamilyHandle* cf,
                  const rocksdb::ReadOptions& read_options)
      : txn_(txn), cf_(cf), read_options_(read_options) {}

  rocksdb::Status Read(const rocksdb::Slice& key, std::string* value) override {
    return txn_->GetForUpdate(read_options_, cf_, key, value);
  }
  rocksdb::Status ReadShared(const rocksdb::Slice& key, std::string* value) override {
    return txn_->GetForUpdate(read_options_, cf_, key, value, /*exclusive=*/false);
  }
  rocksdb::Status ReadUnlocked(const rocksdb::Slice& key, std::string* value) override {
    return txn_->Get(read_options_, cf_, key, value);
  }
  rocksdb::Status Write(const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    return txn_->Put(cf_, key, value);
  }
  rocksdb::Status Remove(const rocksdb::Slice& key) override { return txn_->Delete(cf_, key); }
  std::unique_ptr<rocksdb::Iterator> NewIterator() override {
    return std::unique_ptr<rocksdb::Iterator>(txn_->GetIterator(read_options_, cf_));
  }

 private:
  rocksdb::Transaction* txn_;
  rocksdb::ColumnFamilyHandle* cf_;
  const rocksdb::ReadOptions& read_options_;
};

// Direct database access. Each write is atomic on its own (TransactionDB locks the key for
// it); reads do not lock.
class DbRows final : public Rows {
 public:
  DbRows(rocksdb::TransactionDB* db, rocksdb::ColumnFamilyHandle* cf,
         const rocksdb::ReadOptions& read_options, const rocksdb::WriteOptions& write_options)
      : db_(db), cf_(cf), read_options_(read_options), write_options_(write_options) {}

  rocksdb::Status Read(const rocksdb::Slice& key, std::string* value) override {
    return db_->Get(read_options_, cf_, key, value);
  }
  rocksdb::Status ReadShared(const rocksdb::Slice& key, std::string* value) override {
    return Read(key, value);
  }
  rocksdb::Status ReadUnlocked(const rocksdb::Slice& key, std::string* value) override {
    return Read(key, value);
  }
  rocksdb::Status Write(const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    return db_->Put(write_options_, cf_, key, value);
  }
  rocksdb::Status Remove(const rocksdb::Slice& key) override {
    return db_->Delete(write_options_, cf_, key);
  }
  std::unique_ptr<rocksdb::Iterator> NewIterator() override {
    return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(read_options_, cf_));
  }

 private:
  rocksdb::TransactionDB* db_;
  rocksdb::ColumnFamilyHandle* cf_;
  const rocksdb::ReadOptions& read_options_;
  const rocksdb::WriteOptions& write_options_;
};

}  // namespace cairn::internal
