// Options for Store::Open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cairn/clock.h"
#include "cairn/fault_injection.h"
#include "cairn/result.h"
#include "cairn/store_health.h"

namespace cairn {

// When an acknowledged write becomes durable. Named after Redis's appendfsync choices.
enum class Durability {
  // fsync before a write is acknowledged. Concurrent writers share one fsync (group commit).
  kAlways,
  // Writes reach the operating system before they are acknowledged, so they survive a crash of
  // the process; a background thread fsyncs once a second, so a power loss costs at most ~1 s.
  kEverySec,
  // Writes reach the operating system before they are acknowledged (they survive a process
  // crash); the operating system decides when they reach the disk.
  kNone,
};

// "always", "everysec" or "none".
std::string_view DurabilityName(Durability durability);
// Parses "always" / "everysec" / "none" (case-insensitive); InvalidArgument otherwise.
Result<Durability> ParseDurability(std::string_view name);

struct Options {
  // Directory that holds the store's files. REQUIRED: must be non-empty.
  std::string data_dir;

  // Create the directory and an empty store when none exists. Default: true.
  bool create_if_missing = true;

  // Default: kEverySec.
  Durability durability = Durability::kEverySec;

  // Bytes of RocksDB block cache shared by all column families. Default: 64 MiB. Must be > 0.
  std::size_t block_cache_bytes = 64 * 1024 * 1024;

  // Bytes of memory for recently read keyspace rows, so that a hot key is read without a
  // RocksDB lookup (whose cost grows with the writes since the last flush). Every write keeps
  // it exact. Default: 32 MiB. 0 turns it off.
  std::size_t row_cache_bytes = 32 * 1024 * 1024;

  // How long a transaction waits for a key locked by another transaction (with
  // serialize_keyspace: for its turn at the keyspace) before it fails with kBusy.
  // Default: 1000 ms. Must be in [1, 60000].
  std::int64_t lock_timeout_ms = 1000;

  // The most table files the store keeps open at once (RocksDB's max_open_files); a table
  // file not open is opened again when it is read. -1 (default): every table file stays open,
  // which is fastest but lets the store's file descriptors grow with its size. A program that
  // shares out its descriptors (cairn-server: clients get the rest) sets a bound. Must be -1
  // or at least 20.
  int max_open_files = -1;

  // Source of time for expiry and the compaction filters. Default (null): DefaultClock().
  std::shared_ptr<Clock> clock;
  // How threads share the keyspace (records, hashes, lists, sets, sorted sets, streams and
  // idempotency records). false (default): each transaction locks the rows it touches, so
  // threads working on different keys run side by side. true: they take turns, first come
  // first served — a call, or a Transaction from its begin to its commit or rollback, has the
  // keyspace to itself, and a thread that finds it taken waits (up to lock_timeout_ms, then
  // kBusy). No row is locked, and a key's row (a string, an expiry, a collection's size and
  // ends; not the members of a collection) rewritten at no greater size replaces its old
  // value in the memtable instead of adding a version beside it, and the keyspace's memtables are
  // B+trees, whose inserts at random places cost a fraction of a skiplist's. For a store used
  // mostly from one thread, as an event loop uses it (cairn-server with one io thread): its
  // calls cost less, and a hot key (a counter, a lock, a rate limit) keeps one memtable entry.
  // REQUIRES when true: a Transaction is committed or rolled back before its thread waits for
  // another thread that uses the keyspace (that thread waits for the transaction: both stop
  // until the timeout).
  bool serialize_keyspace = false;

  // With serialize_keyspace: the program itself makes sure that no two calls into the keyspace
  // overlap, and may make them from different threads in turn — cairn-server runs every
  // command on one keyspace executor whose turn passes between its io threads. The store then
  // keeps no gate: nothing waits for a turn, and a Transaction may be begun on one thread and
  // used, committed or rolled back on another. Calls that do overlap are a data race (the
  // keyspace's memtables and rows take no locks). Default: false (the store's own gate lets
  // one thread in at a time). REQUIRES when true: serialize_keyspace.
  bool caller_serializes_keyspace = false;

  // Writes are refused (kIOError, Store::Health says why) while the data directory's file
  // system has less free space than this, so that the disk never fills up under the store:
  // RocksDB needs room to flush and compact, and a write that meets a full disk stops every
  // write until space is freed. Checked once a second. Default: 64 MiB. 0 turns the guard off.
  std::uint64_t min_free_disk_bytes = 64ull << 20;

  // Called when the store stops taking writes and when it takes them again (StoreHealth), on a
  // thread of the store's: to log it, say. It must return quickly and must not call the store.
  std::function<void(const StoreHealth&)> on_health_change;

  // For tests: every file operation of the store goes through this injector, which can fail
  // them and simulate a power cut (cairn/fault_injection.h). Default (null): none.
  std::shared_ptr<FaultInjection> fault_injection;
};

}  // namespace cairn
