// Leases: locks with owner tokens, expiry and fencing numbers, and counting semaphores.
//
// A resource (any non-empty name) is held by at most `limit` holders at once: 1 for a lease
// (TryAcquire, Acquire, Lock, WithLock), N for a semaphore (TryAcquireSlot). Each acquisition
// gets a fresh random token, which alone can extend or release it, and a fencing number taken
// from the store's persisted monotonic counter: strictly greater than every fencing number
// issued before, for any resource, across expiry and restarts. A holder whose TTL passes is
// gone: its slot is free, and its token can no longer extend or release (kNotOwner).
//
// Fenced writes (FencedSet) carry (resource, fencing) and are refused with kStaleFence when a
// newer fencing number has been issued for that resource, so a holder that was paused past its
// TTL cannot overwrite data written under a newer lease. The check and the write are one
// transaction that also locks the resource's row, so no acquisition can slip in between.
//
// Every call is one store transaction. Waiting (Acquire, Lock, WithLock with wait_ms > 0) is in
// process: waiters for a resource queue in arrival order; a release through this LeaseManager
// wakes the first one, and each waits with a timer for the holder's expiry instant on the
// store's Clock — never by polling. Rows stay in the `leases` column family for good (one small
// row per resource ever leased) so that fencing checks remain exact. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cairn/ownership.h"
#include "cairn/records.h"
#include "cairn/result.h"
#include "cairn/store.h"

namespace cairn {

// Limits, enforced with kInvalidArgument.
inline constexpr std::size_t kMaxResourceBytes = 1024;
inline constexpr std::size_t kMaxOwnerBytes = 256;
inline constexpr std::int64_t kMaxLeaseTtlMs = 7LL * 24 * 60 * 60 * 1000;  // 7 days.
inline constexpr std::uint32_t kMaxSemaphoreLimit = 1024;

struct Lease {
  std::string token;
  std::uint64_t fencing = 0;
  std::int64_t expires_at_ms = 0;
};

struct LeaseBusy {
  std::string holder;               // Owner of the holder whose lease ends first.
  std::int64_t retry_after_ms = 0;  // Until that lease expires (if not released earlier).
};

using AcquireResult = std::variant<Lease, LeaseBusy>;

struct LeaseHolder {
  std::string owner;
  std::string token;
  std::uint64_t fencing = 0;
  std::int64_t acquired_at_ms = 0;
  std::int64_t expires_at_ms = 0;
};

struct LeaseState {
  std::vector<LeaseHolder> holders;   // Live holders, earliest acquired first.
  std::uint64_t highest_fencing = 0;  // The newest fencing number issued for the resource.
};

// How a waiting acquisition (LeaseManager::Acquire with options) waits.
struct AcquireWaitOptions {
  // Holders allowed at once: 1 for a lease, N for a semaphore (1..kMaxSemaphoreLimit).
  std::uint32_t limit = 1;
  // How long to wait for a slot (0..kMaxLeaseTtlMs). Default: 0, answer at once.
  std::int64_t wait_ms = 0;
  // When set, a waiter that finds *stop true stops waiting and returns the LeaseBusy of its
  // last look (it looks once if it has not yet, so it may still acquire). WakeWaiters makes
  // waiters look at it now. Lets a server stop the waits of clients that went away.
  const std::atomic<bool>* stop = nullptr;
};

struct WithLockOptions {
  // How long to wait for the lease. Default: 0 (fail with kConflict at once if held).
  std::int64_t wait_ms = 0;
  // Extend the lease in the background every ttl/3 while fn runs. Default: true.
  bool renew = true;
};

class LeaseManager;

// Releases its lease when destroyed (unless released or moved from).
class LeaseGuard {
 public:
  LeaseGuard(LeaseGuard&& other) noexcept;
  LeaseGuard& operator=(LeaseGuard&& other) noexcept;
  ~LeaseGuard();

  const Lease& lease() const { return lease_; }
  // Releases now. kNotOwner if the lease had already expired or been taken.
  Status Release();

 private:
  friend class LeaseManager;
  LeaseGuard(LeaseManager* manager, std::string resource, Lease lease)
      : manager_(manager), resource_(std::move(resource)), lease_(std::move(lease)) {}

  LeaseManager* manager_ = nullptr;
  std::string resource_;
  Lease lease_;
};

class LeaseManager {
 public:
  // The store must outlive the manager. Several managers over one store share its leases;
  // waiters are woken by releases through their own manager (others: at expiry or timeout).
  explicit LeaseManager(Store& store);
  ~LeaseManager();
  LeaseManager(const LeaseManager&) = delete;
  LeaseManager& operator=(const LeaseManager&) = delete;

  // Takes the lease if it is free. REQUIRES: 0 < ttl_ms <= kMaxLeaseTtlMs.
  Result<AcquireResult> TryAcquire(std::string_view resource, std::string_view owner,
                                   std::int64_t ttl_ms);

  // Like TryAcquire, but waits up to wait_ms for the lease; LeaseBusy after the wait.
  Result<AcquireResult> Acquire(std::string_view resource, std::string_view owner,
                                std::int64_t ttl_ms, std::int64_t wait_ms);

  // TryAcquire or TryAcquireSlot that waits as `options` say; LeaseBusy after the wait.
  Result<AcquireResult> Acquire(std::string_view resource, std::string_view owner,
                                std::int64_t ttl_ms, const AcquireWaitOptions& options);

  // Wakes every acquisition waiting on the resource, so that it looks again (or stops).
  void WakeWaiters(std::string_view resource);

  // Takes one of `limit` slots of a counting semaphore. REQUIRES: 1 <= limit <= 1024.
  Result<AcquireResult> TryAcquireSlot(std::string_view resource, std::string_view owner,
                                       std::uint32_t limit, std::int64_t ttl_ms);
  // Like TryAcquireSlot, waiting up to wait_ms.
  Result<AcquireResult> AcquireSlot(std::string_view resource, std::string_view owner,
                                    std::uint32_t limit, std::int64_t ttl_ms, std::int64_t wait_ms);

  // Moves the expiry of the holder with this token to now + ttl_ms.
  Result<OwnerResult> Extend(std::string_view resource, std::string_view token,
                             std::int64_t ttl_ms);

  // Frees the holder's slot and wakes the first waiter.
  Result<OwnerResult> Release(std::string_view resource, std::string_view token);

  // Live holders and the newest fencing number (empty state for an unknown resource).
  Result<LeaseState> Inspect(std::string_view resource);

  // Acquire (waiting up to wait_ms) as an RAII guard; kConflict if the wait ran out.
  Result<LeaseGuard> Lock(std::string_view resource, std::string_view owner, std::int64_t ttl_ms,
                          std::int64_t wait_ms);

  // Acquires (waiting up to options.wait_ms, else kConflict), runs fn while renewing the lease
  // if asked, then checks that it still holds the lease before releasing it. Returns fn's
  // status; kNotOwner instead of success if the lease was lost while fn ran.
  Status WithLock(std::string_view resource, std::string_view owner, std::int64_t ttl_ms,
                  const std::function<Status(const Lease&)>& fn,
                  const WithLockOptions& options = {});

  // Writes a record only if `fencing` is still the newest fencing number issued for resource;
  // kStaleFence otherwise (nothing written).
  Result<SetResult> FencedSet(std::string_view resource, std::uint64_t fencing,
                              std::string_view key, std::string_view value,
                              const SetOptions& options = {});

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn
