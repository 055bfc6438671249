#include <algorithm>
#include <optional>
#include <thread>

#include "cairn/lease.h"
#include "lease/lease_row.h"
#include "records/record_ops.h"
#include "storage/rocks_status.h"
#include "store_core.h"
#include "transaction_core.h"
#include "util/printable.h"
#include "util/random_id.h"
#include "util/range_check.h"
#include "util/status_macros.h"
#include "util/wakeup_registry.h"

namespace cairn {

using internal::ColumnFamily;
using internal::LeaseRow;
using internal::Printable;
using internal::Rows;

namespace {

Status ValidateResource(std::string_view resource) {
  if (resource.empty()) return Status::InvalidArgument("lease resource name is empty");
  if (resource.size() > kMaxResourceBytes) {
    return Status::InvalidArgument("lease resource name is " + std::to_string(resource.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxResourceBytes));
  }
  return Status::Ok();
}

Status ValidateOwner(std::string_view owner) {
  if (owner.size() > kMaxOwnerBytes) {
    return Status::InvalidArgument("lease owner is " + std::to_string(owner.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxOwnerBytes));
  }
  return Status::Ok();
}

Status ValidateLeaseTtl(std::int64_t ttl_ms) {
  return internal::CheckRange("lease TTL", ttl_ms, 1, kMaxLeaseTtlMs, " ms");
}

Status ValidateWait(std::int64_t wait_ms) {
  return internal::CheckRange("lease wait", wait_ms, 0, kMaxLeaseTtlMs, " ms");
}

Status ValidateLimit(std::uint32_t limit) {
  return internal::CheckRange("semaphore limit", limit, 1, kMaxSemaphoreLimit);
}

Status ValidateToken(std::string_view token) {
  return internal::CheckSize("lease token", token.size(), 1, kMaxOwnerBytes);
}

}  // namespace

class LeaseManager::Impl {
 public:
  explicit Impl(Store& store) : core_(store.core()) {}

  const Clock* clock() const { return &core_.clock(); }

  Result<AcquireResult> TryAcquire(std::string_view resource, std::string_view owner,
                                   std::uint32_t limit, std::int64_t ttl_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateResource(resource));
    CAIRN_RETURN_IF_ERROR(ValidateOwner(owner));
    CAIRN_RETURN_IF_ERROR(ValidateLimit(limit));
    CAIRN_RETURN_IF_ERROR(ValidateLeaseTtl(ttl_ms));
    return internal::RunInTransaction(
        core_, ColumnFamily::kLeases, [&](Rows& rows, std::int64_t) -> Result<AcquireResult> {
          std::int64_t now = 0;
          CAIRN_ASSIGN_OR_RETURN(LeaseRow row,
                                 internal::LoadLeaseRow(rows, core_.clock(), resource, &now));
          if (row.holders.size() >= limit) {
            const auto first_to_end = std::min_element(
                row.holders.begin(), row.holders.end(),
                [](const auto& a, const auto& b) { return a.expires_at_ms < b.expires_at_ms; });
            return AcquireResult(LeaseBusy{first_to_end->owner, first_to_end->expires_at_ms - now});
          }
          CAIRN_ASSIGN_OR_RETURN(std::uint64_t fencing, core_.fencing_counter().Next());
          LeaseHolder holder{std::string(owner), internal::RandomId(), fencing, now, now + ttl_ms};
          Lease lease{holder.token, fencing, holder.expires_at_ms};
          row.highest_fencing = fencing;
          row.holders.push_back(std::move(holder));
          CAIRN_RETURN_IF_ERROR(internal::StoreLeaseRow(rows, resource, row));
          return AcquireResult(std::move(lease));
        });
  }

  Result<AcquireResult> AcquireWaiting(std::string_view resource, std::string_view owner,
                                       const AcquireWaitOptions& o, std::int64_t ttl_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateWait(o.wait_ms));
    const Clock& clock = core_.clock();
    const std::int64_t deadline = clock.NowMs() + o.wait_ms;
    auto stopped = [&] { return o.stop != nullptr && o.stop->load(); };
    Wakeup wakeup;
    internal::WakeupRegistry::Entry ticket(waiters_, std::string(resource), &wakeup);
    std::optional<LeaseBusy> last_busy;  // What the last try met.
    while (true) {
      const std::int64_t now = clock.NowMs();
      // Stopped while waiting (the caller went away): no further try, which could take the
      // lease for nobody.
      if (last_busy && stopped()) return AcquireResult(*last_busy);
      if (!ticket.first() && now < deadline && !stopped()) {
        // Not our turn: wait for the waiters ahead of us (or our deadline), then look again.
        clock.WaitUntil(wakeup, deadline);
        continue;
      }
      Result<AcquireResult> result = TryAcquire(resource, owner, o.limit, ttl_ms);
      if (!result.ok()) return result;
      const auto* busy = std::get_if<LeaseBusy>(&*result);
      if (busy == nullptr || now >= deadline || stopped()) return result;
      last_busy = *busy;
      // Woken by a release through this manager, or at the holder's expiry instant, or at our
      // deadline, whichever comes first.
      clock.WaitUntil(wakeup, std::min(deadline, now + busy->retry_after_ms));
    }
  }

  void WakeWaiters(std::string_view resource) { waiters_.NotifyAll(std::string(resource)); }

  template <typename Change>
  Result<OwnerResult> OwnerMutate(std::string_view resource, std::string_view token,
                                  Change&& change) {
    CAIRN_RETURN_IF_ERROR(ValidateResource(resource));
    CAIRN_RETURN_IF_ERROR(ValidateToken(token));
    return internal::RunInTransaction(
        core_, ColumnFamily::kLeases, [&](Rows& rows, std::int64_t) -> Result<OwnerResult> {
          std::int64_t now = 0;
          CAIRN_ASSIGN_OR_RETURN(LeaseRow row,
                                 internal::LoadLeaseRow(rows, core_.clock(), resource, &now));
          if (row.Find(token) == nullptr) return OwnerResult::kNotOwner;
          change(row, now);
          CAIRN_RETURN_IF_ERROR(internal::StoreLeaseRow(rows, resource, row));
          return OwnerResult::kDone;
        });
  }

  Result<OwnerResult> Extend(std::string_view resource, std::string_view token,
                             std::int64_t ttl_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateLeaseTtl(ttl_ms));
    return OwnerMutate(resource, token, [&](LeaseRow& row, std::int64_t now) {
      row.Find(token)->expires_at_ms = now + ttl_ms;
    });
  }

  Result<OwnerResult> Release(std::string_view resource, std::string_view token) {
    auto result = OwnerMutate(resource, token, [&](LeaseRow& row, std::int64_t) {
      std::erase_if(row.holders, [&](const LeaseHolder& h) { return h.token == token; });
    });
    if (result.ok() && *result == OwnerResult::kDone) waiters_.NotifyFirst(std::string(resource));
    return result;
  }

  Result<LeaseState> Inspect(std::string_view resource) {
    CAIRN_RETURN_IF_ERROR(ValidateResource(resource));
    CAIRN_RETURN_IF_ERROR(core_.CheckOpen());
    internal::DbRows rows(core_.db(), core_.cf(ColumnFamily::kLeases), core_.read_options(),
                          core_.write_options(), core_.row_cache(ColumnFamily::kLeases),
                          core_.health());
    std::int64_t now = 0;
    CAIRN_ASSIGN_OR_RETURN(LeaseRow row,
                           internal::LoadLeaseRow(rows, core_.clock(), resource, &now));
    return LeaseState{std::move(row.holders), row.highest_fencing};
  }

  Result<SetResult> FencedSet(std::string_view resource, std::uint64_t fencing,
                              std::string_view key, std::string_view value,
                              const SetOptions& options) {
    CAIRN_RETURN_IF_ERROR(ValidateResource(resource));
    // One transaction over two column families: the lease row is locked while the record is
    // written, so no newer fencing number can be issued in between.
    CAIRN_ASSIGN_OR_RETURN(internal::KeyspaceHold hold, core_.EnterKeyspace());
    internal::RowTransaction txn = core_.BeginRows(ColumnFamily::kLeases);
    internal::TransactionRows leases =
        internal::TransactionRowsOf(core_, txn, ColumnFamily::kLeases);
    internal::TransactionRows records =
        internal::TransactionRowsOf(core_, txn, ColumnFamily::kRecords);
    const std::int64_t now = core_.clock().NowMs();
    auto written = [&]() -> Result<SetResult> {
      std::int64_t locked_now = 0;
      CAIRN_ASSIGN_OR_RETURN(LeaseRow row,
                             internal::LoadLeaseRow(leases, core_.clock(), resource, &locked_now));
      if (fencing > row.highest_fencing) {
        return Status::InvalidArgument("fencing number " + std::to_string(fencing) +
                                       " was never issued for lease '" + Printable(resource) + "'");
      }
      if (fencing < row.highest_fencing) {
        return Status::StaleFence("fencing number " + std::to_string(fencing) + " for lease '" +
                                  Printable(resource) +
                                  "' is stale: " + std::to_string(row.highest_fencing) +
                                  " has been issued since; the write was refused");
      }
      return internal::record_ops::Set(records, now, key, value, options);
    }();
    if (!written.ok()) return written;  // txn rolls back as it goes.
    CAIRN_RETURN_IF_ERROR(internal::CommitOrRelease(core_, txn));
    return written;
  }

 private:
  internal::StoreCore& core_;
  internal::WakeupRegistry waiters_;
};

LeaseGuard::LeaseGuard(LeaseGuard&& other) noexcept
    : manager_(std::exchange(other.manager_, nullptr)),
      resource_(std::move(other.resource_)),
      lease_(std::move(other.lease_)) {}

LeaseGuard& LeaseGuard::operator=(LeaseGuard&& other) noexcept {
  if (this != &other) {
    (void)Release();
    manager_ = std::exchange(other.manager_, nullptr);
    resource_ = std::move(other.resource_);
    lease_ = std::move(other.lease_);
  }
  return *this;
}

LeaseGuard::~LeaseGuard() { (void)Release(); }

Status LeaseGuard::Release() {
  if (manager_ == nullptr) return Status::Ok();
  LeaseManager* manager = std::exchange(manager_, nullptr);
  CAIRN_ASSIGN_OR_RETURN(OwnerResult released, manager->Release(resource_, lease_.token));
  if (released == OwnerResult::kNotOwner) {
    return Status::NotOwner("the lease on '" + Printable(resource_) +
                            "' had expired or been taken over before it was released");
  }
  return Status::Ok();
}

LeaseManager::LeaseManager(Store& store) : impl_(std::make_unique<Impl>(store)) {}

LeaseManager::~LeaseManager() = default;

Result<AcquireResult> LeaseManager::TryAcquire(std::string_view resource, std::string_view owner,
                                               std::int64_t ttl_ms) {
  return impl_->TryAcquire(resource, owner, 1, ttl_ms);
}

Result<AcquireResult> LeaseManager::Acquire(std::string_view resource, std::string_view owner,
                                            std::int64_t ttl_ms, std::int64_t wait_ms) {
  return impl_->AcquireWaiting(resource, owner, AcquireWaitOptions{1, wait_ms, nullptr}, ttl_ms);
}

Result<AcquireResult> LeaseManager::Acquire(std::string_view resource, std::string_view owner,
                                            std::int64_t ttl_ms,
                                            const AcquireWaitOptions& options) {
  return impl_->AcquireWaiting(resource, owner, options, ttl_ms);
}

void LeaseManager::WakeWaiters(std::string_view resource) { impl_->WakeWaiters(resource); }

Result<AcquireResult> LeaseManager::TryAcquireSlot(std::string_view resource,
                                                   std::string_view owner, std::uint32_t limit,
                                                   std::int64_t ttl_ms) {
  return impl_->TryAcquire(resource, owner, limit, ttl_ms);
}

Result<AcquireResult> LeaseManager::AcquireSlot(std::string_view resource, std::string_view owner,
                                                std::uint32_t limit, std::int64_t ttl_ms,
                                                std::int64_t wait_ms) {
  return impl_->AcquireWaiting(resource, owner, AcquireWaitOptions{limit, wait_ms, nullptr},
                               ttl_ms);
}

Result<OwnerResult> LeaseManager::Extend(std::string_view resource, std::string_view token,
                                         std::int64_t ttl_ms) {
  return impl_->Extend(resource, token, ttl_ms);
}

Result<OwnerResult> LeaseManager::Release(std::string_view resource, std::string_view token) {
  return impl_->Release(resource, token);
}

Result<LeaseState> LeaseManager::Inspect(std::string_view resource) {
  return impl_->Inspect(resource);
}

Result<LeaseGuard> LeaseManager::Lock(std::string_view resource, std::string_view owner,
                                      std::int64_t ttl_ms, std::int64_t wait_ms) {
  CAIRN_ASSIGN_OR_RETURN(AcquireResult acquired, Acquire(resource, owner, ttl_ms, wait_ms));
  if (const auto* busy = std::get_if<LeaseBusy>(&acquired)) {
    return Status::Conflict("lease '" + Printable(resource) + "' is held by '" +
                            Printable(busy->holder) + "' for another " +
                            std::to_string(busy->retry_after_ms) + " ms");
  }
  return LeaseGuard(this, std::string(resource), std::get<Lease>(std::move(acquired)));
}

Status LeaseManager::WithLock(std::string_view resource, std::string_view owner,
                              std::int64_t ttl_ms, const std::function<Status(const Lease&)>& fn,
                              const WithLockOptions& options) {
  CAIRN_ASSIGN_OR_RETURN(LeaseGuard guard, Lock(resource, owner, ttl_ms, options.wait_ms));
  // The renewer extends the lease every ttl/3 on the store's clock until fn returns.
  Wakeup stop;
  std::thread renewer;
  if (options.renew) {
    const Clock& clock = *impl_->clock();
    renewer = std::thread([&, token = guard.lease().token] {
      while (!clock.WaitUntil(stop, clock.NowMs() + std::max<std::int64_t>(1, ttl_ms / 3))) {
        auto extended = Extend(resource, token, ttl_ms);
        if (!extended.ok() || *extended == OwnerResult::kNotOwner) return;  // Lost: stop.
      }
    });
  }
  Status result = fn(guard.lease());
  if (renewer.joinable()) {
    stop.Notify();
    renewer.join();
  }
  // Releasing is owner-checked: it fails if the lease expired or was taken while fn ran.
  Status released = guard.Release();
  if (released.code() == StatusCode::kNotOwner && result.ok()) return released;
  return result.ok() ? released : result;
}

Result<SetResult> LeaseManager::FencedSet(std::string_view resource, std::uint64_t fencing,
                                          std::string_view key, std::string_view value,
                                          const SetOptions& options) {
  return impl_->FencedSet(resource, fencing, key, value, options);
}

}  // namespace cairn
