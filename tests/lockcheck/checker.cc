#include "lockcheck/checker.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <tuple>

namespace cairn::lockcheck {
namespace {

// One acquisition and what its holder did with it afterwards (extend, release; not writes,
// which are allowed after a release until a newer number is issued).
struct Life {
  const Event* acquire = nullptr;
  std::int64_t start_ms = 0;       // Exact: the server's instant of acquisition.
  std::int64_t held_until_ms = 0;  // Held at least until here (see checker.h).
};

std::int64_t StartMs(const Event& acquire) { return acquire.expires_at_ms - acquire.ttl_ms; }

bool IsAcquired(const Event& e) { return e.op == Op::kAcquire && e.outcome == Outcome::kOk; }

class Checker {
 public:
  Checker(const std::vector<Event>& events, const std::vector<ResourceSpec>& resources)
      : events_(events), resources_(resources) {}

  CheckResult Run() {
    Classify();
    CheckFencingOrder();
    BuildLives();
    CheckExclusion();
    CheckWrites();
    CheckFinalValues();
    return std::move(result_);
  }

 private:
  void Find(const std::string& what) { result_.findings.push_back(what); }

  void Classify() {
    for (const Event& e : events_) {
      if (e.resource < 0 || static_cast<std::size_t>(e.resource) >= resources_.size()) {
        Find("error: an event names resource " + std::to_string(e.resource) + ": " + Describe(e));
        continue;
      }
      if (e.outcome == Outcome::kError)
        Find("error: a reply the protocol does not allow: " + Describe(e));
      if (e.op == Op::kAcquire && e.outcome == Outcome::kBusy) ++result_.stats.busy;
      if (IsAcquired(e)) {
        ++result_.stats.acquisitions;
        const auto [at, fresh] = by_fencing_.emplace(e.fencing, &e);
        if (!fresh) {
          Find("fencing: number " + std::to_string(e.fencing) +
               " issued twice: " + Describe(*at->second) + " and " + Describe(e));
        }
        acquisitions_.push_back(&e);
      } else if (e.op == Op::kExtend || e.op == Op::kRelease) {
        holder_ops_[{e.client, e.fencing}].push_back(&e);
      } else if (e.op == Op::kWrite) {
        writes_.push_back(&e);
      }
    }
  }

  // An acquisition that began after another had answered got a larger number; and on one
  // resource, numbers follow the instants of acquisition.
  void CheckFencingOrder() {
    std::vector<const Event*> by_answer = acquisitions_, by_start = acquisitions_;
    std::sort(by_answer.begin(), by_answer.end(),
              [](const Event* a, const Event* b) { return a->answered_us < b->answered_us; });
    std::sort(by_start.begin(), by_start.end(),
              [](const Event* a, const Event* b) { return a->invoked_us < b->invoked_us; });
    std::size_t done = 0;
    const Event* newest = nullptr;  // The largest number among those answered so far.
    for (const Event* e : by_start) {
      while (done < by_answer.size() && by_answer[done]->answered_us < e->invoked_us) {
        if (newest == nullptr || by_answer[done]->fencing > newest->fencing) {
          newest = by_answer[done];
        }
        ++done;
      }
      if (newest != nullptr && newest->fencing >= e->fencing) {
        Find("fencing: " + Describe(*e) + " began after " + Describe(*newest) +
             " had answered, yet its number is not greater");
      }
    }
    std::map<int, std::vector<const Event*>> per_resource;
    for (const Event* e : acquisitions_) per_resource[e->resource].push_back(e);
    for (auto& [resource, list] : per_resource) {
      std::sort(list.begin(), list.end(),
                [](const Event* a, const Event* b) { return a->fencing < b->fencing; });
      for (std::size_t i = 1; i < list.size(); ++i) {
        if (StartMs(*list[i]) < StartMs(*list[i - 1])) {
          Find("fencing: " + Describe(*list[i]) + " was acquired before " + Describe(*list[i - 1]) +
               " yet has the larger number");
        }
      }
    }
  }

  void BuildLives() {
    for (const Event* acquire : acquisitions_) {
      Life life{acquire, StartMs(*acquire), acquire->expires_at_ms};
      std::int64_t expiry_floor = acquire->expires_at_ms;
      bool released = false;
      auto ops = holder_ops_.find({acquire->client, acquire->fencing});
      if (ops != holder_ops_.end()) {
        std::vector<const Event*>& list = ops->second;
        std::sort(list.begin(), list.end(),
                  [](const Event* a, const Event* b) { return a->invoked_us < b->invoked_us; });
        for (const Event* op : list) {
          if (op->outcome == Outcome::kNotOwner) {
            ++result_.stats.not_owner;
            // Ran at or before its answer; the lease could not have ended before expiry_floor.
            if (!released && op->answered_ms() < expiry_floor) {
              Find("wrong refusal: " + Describe(*op) + " while the lease it holds (" +
                   Describe(*acquire) + ") lasts at least until " + std::to_string(expiry_floor) +
                   " ms");
            }
          } else if (op->outcome == Outcome::kOk && op->op == Op::kExtend) {
            ++result_.stats.extends;
            // The server set now + ttl, its now being no earlier than the send.
            expiry_floor = op->invoked_ms() + op->ttl_ms;
          } else if (op->outcome == Outcome::kOk && op->op == Op::kRelease) {
            ++result_.stats.releases;
            // Alive when the release ran, which was no earlier than its send.
            life.held_until_ms = op->invoked_ms();
            released = true;
          }
        }
      }
      if (!released) life.held_until_ms = expiry_floor;
      lives_[acquire->resource].push_back(life);
    }
  }

  // A sweep over each resource's sure intervals: at no instant more holders than its limit.
  void CheckExclusion() {
    for (const auto& [resource, lives] : lives_) {
      // (instant, +1 start / -1 end, life): ends sort before starts at the same instant, as a
      // lease whose expiry is `now` is free at `now`.
      std::vector<std::tuple<std::int64_t, int, const Life*>> points;
      for (const Life& life : lives) {
        if (life.held_until_ms <= life.start_ms) continue;
        points.emplace_back(life.start_ms, +1, &life);
        points.emplace_back(life.held_until_ms, -1, &life);
      }
      std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
        return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
      });
      const int limit = resources_[static_cast<std::size_t>(resource)].limit;
      std::set<const Life*> holding;
      for (const auto& [instant, step, life] : points) {
        if (step < 0) {
          holding.erase(life);
          continue;
        }
        holding.insert(life);
        result_.stats.most_holders_at_once =
            std::max<std::int64_t>(result_.stats.most_holders_at_once, holding.size());
        if (static_cast<int>(holding.size()) > limit) {
          std::string who;
          for (const Life* h : holding) {
            who += "\n    " + Describe(*h->acquire) + ", held at least until " +
                   std::to_string(h->held_until_ms) + " ms";
          }
          Find("exclusion: resource " + std::to_string(resource) + " (limit " +
               std::to_string(limit) + ") had " + std::to_string(holding.size()) + " holders at " +
               std::to_string(instant) + " ms:" + who);
        }
      }
    }
  }

  void CheckWrites() {
    // Per resource, acquisitions in order of answer, each with the newest number among it and
    // those answered before it.
    std::map<int, std::vector<std::pair<const Event*, const Event*>>> answered;
    for (const Event* e : acquisitions_) answered[e->resource].emplace_back(e, e);
    for (auto& [resource, list] : answered) {
      std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
        return a.first->answered_us < b.first->answered_us;
      });
      for (std::size_t i = 1; i < list.size(); ++i) {
        if (list[i - 1].second->fencing > list[i].second->fencing)
          list[i].second = list[i - 1].second;
      }
    }
    for (const Event* w : writes_) {
      if (w->outcome == Outcome::kOk) {
        ++result_.stats.writes;
        const auto& list = answered[w->resource];
        auto after = std::lower_bound(
            list.begin(), list.end(), w->invoked_us,
            [](const auto& a, std::int64_t us) { return a.first->answered_us < us; });
        if (after == list.begin()) continue;
        const Event* newest = std::prev(after)->second;
        if (newest->fencing > w->fencing) {
          Find("stale write: " + Describe(*w) + " was accepted, though " + Describe(*newest) +
               " had already been issued a newer number");
        }
      } else if (w->outcome == Outcome::kStale) {
        ++result_.stats.stale_refused;
        auto newer = by_fencing_.find(w->issued);
        if (w->issued <= w->fencing || newer == by_fencing_.end() ||
            newer->second->resource != w->resource || newer->second->invoked_us >= w->answered_us) {
          Find("wrong refusal: " + Describe(*w) +
               " names a newer number that no acquisition of this resource had been sent for");
        }
      }
    }
  }

  // Each data key ends as the last accepted write of the newest number that wrote it.
  void CheckFinalValues() {
    std::vector<const Event*> last(resources_.size(), nullptr);
    for (const Event* w : writes_) {
      if (w->outcome != Outcome::kOk) continue;
      const Event*& best = last[static_cast<std::size_t>(w->resource)];
      if (best == nullptr || w->fencing > best->fencing ||
          (w->fencing == best->fencing && w->answered_us > best->answered_us)) {
        best = w;
      }
    }
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      const std::optional<std::string>& found = resources_[r].final;
      const std::optional<std::string> expected =
          last[r] ? std::optional<std::string>(last[r]->value) : std::nullopt;
      if (found != expected) {
        Find("lost write: resource " + std::to_string(r) + "'s key holds " +
             (found ? "\"" + *found + "\"" : "nil") + ", expected " +
             (last[r] ? Describe(*last[r]) : "nil (no write was accepted)"));
      }
    }
  }

  const std::vector<Event>& events_;
  const std::vector<ResourceSpec>& resources_;
  CheckResult result_;
  std::map<std::int64_t, const Event*> by_fencing_;
  std::vector<const Event*> acquisitions_;
  std::vector<const Event*> writes_;
  std::map<std::pair<int, std::int64_t>, std::vector<const Event*>> holder_ops_;
  std::map<int, std::vector<Life>> lives_;
};

}  // namespace

CheckResult Check(const std::vector<Event>& events, const std::vector<ResourceSpec>& resources) {
  return Checker(events, resources).Run();
}

}  // namespace cairn::lockcheck
