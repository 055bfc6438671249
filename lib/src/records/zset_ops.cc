#include "records/zset_ops.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>

#include "records/member_map_ops.h"
#include "storage/member_key.h"
#include "storage/rocks_status.h"
#include "storage/score_codec.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal::zset_ops {
namespace {

using member_map_ops::kZSetKind;
using member_map_ops::MapState;

// The two row prefixes of one incarnation of a sorted set.
struct Prefixes {
  std::string members;  // + member → score
  std::string scores;   // + score + member
};

Prefixes PrefixesOf(std::string_view key, std::uint64_t version) {
  return {EncodeMemberPrefix(RowTag::kZSetMember, key, version),
          EncodeMemberPrefix(RowTag::kZSetScore, key, version)};
}

std::string ScoreRow(const Prefixes& p, double score, std::string_view member) {
  std::string row = p.scores;
  AppendScore(&row, score);
  row.append(member);
  return row;
}

std::string EncodeScoreValue(double score) {
  std::string payload;
  AppendScore(&payload, score);
  return EncodeValue(ValueType::kMember, 0, payload);
}

Result<double> ScoreOf(std::string_view payload, std::string_view key) {
  if (payload.size() != kScoreBytes) {
    return Status::Corruption("sorted set '" + Printable(key) + "' has a score of " +
                              std::to_string(payload.size()) + " bytes");
  }
  return DecodeScore(payload.data());
}

// The member's score, read from its member row; nullopt when absent.
Result<std::optional<double>> StoredScore(Keyspace& ks, std::string_view key, const Prefixes& p,
                                          std::string_view member) {
  std::string row = p.members;
  row.append(member);
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> payload,
                         member_map_ops::ReadMember(ks.members, key, row));
  if (!payload) return std::optional<double>();
  CAIRN_ASSIGN_OR_RETURN(double score, ScoreOf(*payload, key));
  return std::optional<double>(score);
}

Status WriteStatus(const rocksdb::Status& s, std::string_view key) {
  return s.ok() ? Status::Ok() : FromRocks(s, "write sorted set '" + Printable(key) + "'");
}

// Walks one of the sorted set's row ranges forwards or backwards.
class Walk {
 public:
  Walk(Rows& members, std::string prefix)
      : prefix_(std::move(prefix)), it_(members.NewPrefixIterator(prefix_)) {}

  void SeekFirst(std::string_view suffix) { it_->Seek(prefix_ + std::string(suffix)); }
  // The last row at or before prefix + suffix; with `suffix` empty and `to_end`, the last row.
  void SeekLast(std::string_view suffix, bool to_end) {
    it_->SeekForPrev(to_end ? Rows::PrefixSuccessor(prefix_) : prefix_ + std::string(suffix));
  }
  bool Valid() const { return it_->Valid() && it_->key().starts_with(prefix_); }
  void Step(bool reverse) { reverse ? it_->Prev() : it_->Next(); }
  std::string_view Suffix() const {
    return std::string_view(it_->key().data(), it_->key().size()).substr(prefix_.size());
  }
  std::string_view Payload() const {
    return std::string_view(it_->value().data(), it_->value().size()).substr(kValueHeaderBytes);
  }
  Status status(std::string_view key) const {
    return FromRocks(it_->status(), "read sorted set '" + Printable(key) + "'");
  }

 private:
  std::string prefix_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// A score-index row's suffix: score, then member.
struct IndexRow {
  double score;
  std::string_view member;
};
IndexRow ParseIndexRow(std::string_view suffix) {
  return {DecodeScore(suffix.data()), suffix.substr(kScoreBytes)};
}

bool BelowMax(double score, const ZRangeRequest::ScoreBound& max) {
  return max.exclusive ? score < max.value : score <= max.value;
}
bool AboveMin(double score, const ZRangeRequest::ScoreBound& min) {
  return min.exclusive ? score > min.value : score >= min.value;
}
bool BelowMaxMember(std::string_view m, const ZRangeRequest::MemberBound& max) {
  return max.unbounded || (max.exclusive ? m < max.value : m <= max.value);
}
bool AboveMinMember(std::string_view m, const ZRangeRequest::MemberBound& min) {
  return min.unbounded || (min.exclusive ? m > min.value : m >= min.value);
}

// Collects matches after skipping `offset`, up to `limit` (negative: all). Returns false when
// full.
class Collector {
 public:
  Collector(std::int64_t offset, std::int64_t limit) : skip_(offset), limit_(limit) {}
  bool Add(std::string_view member, double score) {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    out_.push_back({std::string(member), score});
    return limit_ < 0 || static_cast<std::int64_t>(out_.size()) < limit_;
  }
  bool Full() const { return limit_ >= 0 && static_cast<std::int64_t>(out_.size()) >= limit_; }
  std::vector<ScoredMember> Take() { return std::move(out_); }

 private:
  std::int64_t skip_;
  std::int64_t limit_;
  std::vector<ScoredMember> out_;
};

Result<std::vector<ScoredMember>> RangeByRank(Keyspace& ks, std::string_view key, const Prefixes& p,
                                              std::uint64_t size, const ZRangeRequest& r) {
  const auto n = static_cast<std::int64_t>(size);
  std::int64_t start = r.start < 0 ? r.start + n : r.start;
  std::int64_t stop = r.stop < 0 ? r.stop + n : r.stop;
  if (start < 0) start = 0;
  if (stop >= n) stop = n - 1;
  if (start > stop || start >= n) return std::vector<ScoredMember>();
  // Walk from the nearer end: ranks near either end (a queue's head or tail) stay cheap.
  const std::int64_t from_end = n - 1 - stop;
  const bool backwards = from_end < start ? !r.reverse : r.reverse;
  Collector collect(backwards == r.reverse ? start : from_end, stop - start + 1);
  Walk walk(ks.members, p.scores);
  backwards ? walk.SeekLast({}, true) : walk.SeekFirst({});
  for (; walk.Valid() && !collect.Full(); walk.Step(backwards)) {
    const IndexRow row = ParseIndexRow(walk.Suffix());
    collect.Add(row.member, row.score);
  }
  CAIRN_RETURN_IF_ERROR(walk.status(key));
  std::vector<ScoredMember> out = collect.Take();
  if (backwards != r.reverse) std::reverse(out.begin(), out.end());
  return out;
}

Result<std::vector<ScoredMember>> RangeByScore(Keyspace& ks, std::string_view key,
                                               const Prefixes& p, const ZRangeRequest& r) {
  Collector collect(r.offset, r.limit);
  if (r.limit == 0) return collect.Take();
  Walk walk(ks.members, p.scores);
  std::string bound;
  if (r.reverse) {
    // The last row of a score below the next score up (or the very last row).
    const std::uint64_t bits = ScoreBits(r.max_score.value);
    const bool to_end = std::isinf(r.max_score.value) && r.max_score.value > 0;
    AppendBigEndian64(&bound, to_end ? bits : bits + 1);
    walk.SeekLast(bound, to_end);
  } else {
    AppendScore(&bound, r.min_score.value);
    walk.SeekFirst(bound);
  }
  for (; walk.Valid(); walk.Step(r.reverse)) {
    const IndexRow row = ParseIndexRow(walk.Suffix());
    const bool in_min = AboveMin(row.score, r.min_score), in_max = BelowMax(row.score, r.max_score);
    if (r.reverse ? !in_min : !in_max) break;     // Past the far end.
    if (r.reverse ? !in_max : !in_min) continue;  // Not yet at the near end.
    if (!collect.Add(row.member, row.score)) break;
  }
  CAIRN_RETURN_IF_ERROR(walk.status(key));
  return collect.Take();
}

Result<std::vector<ScoredMember>> RangeByMember(Keyspace& ks, std::string_view key,
                                                const Prefixes& p, const ZRangeRequest& r) {
  Collector collect(r.offset, r.limit);
  if (r.limit == 0) return collect.Take();
  Walk walk(ks.members, p.members);
  if (r.reverse) {
    walk.SeekLast(r.max_member.value, r.max_member.unbounded);
  } else {
    walk.SeekFirst(r.min_member.unbounded ? std::string_view() : r.min_member.value);
  }
  for (; walk.Valid(); walk.Step(r.reverse)) {
    const std::string_view member = walk.Suffix();
    const bool in_min = AboveMinMember(member, r.min_member);
    const bool in_max = BelowMaxMember(member, r.max_member);
    if (r.reverse ? !in_min : !in_max) break;
    if (r.reverse ? !in_max : !in_min) continue;
    CAIRN_ASSIGN_OR_RETURN(double score, ScoreOf(walk.Payload(), key));
    if (!collect.Add(member, score)) break;
  }
  CAIRN_RETURN_IF_ERROR(walk.status(key));
  return collect.Take();
}

Status ValidateEntries(std::span<const ZSetEntry> entries) {
  if (entries.empty()) return Status::InvalidArgument("a sorted set write needs a member");
  for (const ZSetEntry& e : entries) {
    CAIRN_RETURN_IF_ERROR(member_map_ops::ValidateMember(kZSetKind, e.member));
    if (std::isnan(e.score)) return Status::InvalidArgument("a score is NaN");
  }
  return Status::Ok();
}

}  // namespace

Result<std::optional<double>> Score(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                    std::string_view member) {
  CAIRN_RETURN_IF_ERROR(member_map_ops::ValidateMember(kZSetKind, member));
  CAIRN_ASSIGN_OR_RETURN(MapState state,
                         member_map_ops::LoadMap(kZSetKind, ks.records, now_ms, key));
  if (!state.meta) return std::optional<double>();
  return StoredScore(ks, key, PrefixesOf(key, state.meta->version), member);
}

Result<std::size_t> Put(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                        std::span<const ZSetEntry> entries) {
  CAIRN_RETURN_IF_ERROR(ValidateEntries(entries));
  CAIRN_ASSIGN_OR_RETURN(MapState state,
                         member_map_ops::LoadMap(kZSetKind, ks.records, now_ms, key));
  CompositeMeta meta;
  const bool fresh = !state.meta;
  if (state.meta) {
    meta = *state.meta;
  } else {
    CAIRN_RETURN_IF_ERROR(member_map_ops::StartNew(ks, state, meta));
  }
  const Prefixes p = PrefixesOf(key, meta.version);
  std::size_t added = 0;
  // A sorted set just created has no rows under its new version: a member's old score is
  // the one this call gave it, if any, and needs no read.
  std::unordered_map<std::string_view, double> written;
  for (const ZSetEntry& e : entries) {
    std::optional<double> old;
    if (fresh) {
      if (auto it = written.find(e.member); it != written.end()) old = it->second;
      written[e.member] = e.score;
    } else {
      CAIRN_ASSIGN_OR_RETURN(old, StoredScore(ks, key, p, e.member));
    }
    if (old && ScoreBits(*old) == ScoreBits(e.score)) continue;
    if (old) {
      CAIRN_RETURN_IF_ERROR(WriteStatus(ks.members.Remove(ScoreRow(p, *old, e.member)), key));
    } else {
      ++added;
    }
    std::string row = p.members;
    row.append(e.member);
    CAIRN_RETURN_IF_ERROR(WriteStatus(ks.members.Write(row, EncodeScoreValue(e.score)), key));
    CAIRN_RETURN_IF_ERROR(WriteStatus(
        ks.members.Write(ScoreRow(p, e.score, e.member), EncodeValue(ValueType::kMember, 0, "")),
        key));
  }
  if (added > 0) {
    meta.size += added;
    CAIRN_RETURN_IF_ERROR(member_map_ops::WriteMeta(kZSetKind, ks.records, key, state, meta));
  }
  return added;
}

Result<std::size_t> Remove(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::span<const std::string_view> members) {
  for (std::string_view m : members) {
    CAIRN_RETURN_IF_ERROR(member_map_ops::ValidateMember(kZSetKind, m));
  }
  CAIRN_ASSIGN_OR_RETURN(MapState state,
                         member_map_ops::LoadMap(kZSetKind, ks.records, now_ms, key));
  if (!state.meta) return std::size_t{0};
  CompositeMeta meta = *state.meta;
  const Prefixes p = PrefixesOf(key, meta.version);
  std::size_t removed = 0;
  for (std::string_view m : members) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<double> old, StoredScore(ks, key, p, m));
    if (!old) continue;
    std::string row = p.members;
    row.append(m);
    CAIRN_RETURN_IF_ERROR(WriteStatus(ks.members.Remove(row), key));
    CAIRN_RETURN_IF_ERROR(WriteStatus(ks.members.Remove(ScoreRow(p, *old, m)), key));
    ++removed;
  }
  if (removed > 0) {
    if (removed > meta.size) {
      return Status::Corruption("sorted set '" + Printable(key) + "' counts " +
                                std::to_string(meta.size) + " members but held more");
    }
    meta.size -= removed;
    CAIRN_RETURN_IF_ERROR(member_map_ops::WriteMeta(kZSetKind, ks.records, key, state, meta));
  }
  return removed;
}

Result<std::uint64_t> Size(Keyspace& ks, std::int64_t now_ms, std::string_view key) {
  return member_map_ops::Size(kZSetKind, ks, now_ms, key);
}

Result<std::vector<ScoredMember>> Range(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                        const ZRangeRequest& request) {
  if (request.by == ZRangeRequest::By::kScore &&
      (std::isnan(request.min_score.value) || std::isnan(request.max_score.value))) {
    return Status::InvalidArgument("a score bound is NaN");
  }
  CAIRN_ASSIGN_OR_RETURN(MapState state,
                         member_map_ops::LoadMap(kZSetKind, ks.records, now_ms, key));
  if (!state.meta) return std::vector<ScoredMember>();
  const Prefixes p = PrefixesOf(key, state.meta->version);
  switch (request.by) {
    case ZRangeRequest::By::kRank:
      return RangeByRank(ks, key, p, state.meta->size, request);
    case ZRangeRequest::By::kScore:
      return RangeByScore(ks, key, p, request);
    case ZRangeRequest::By::kLex:
      return RangeByMember(ks, key, p, request);
  }
  return Status::InvalidArgument("unknown kind of range");
}

Result<std::optional<std::uint64_t>> Rank(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                          std::string_view member, bool reverse) {
  CAIRN_RETURN_IF_ERROR(member_map_ops::ValidateMember(kZSetKind, member));
  CAIRN_ASSIGN_OR_RETURN(MapState state,
                         member_map_ops::LoadMap(kZSetKind, ks.records, now_ms, key));
  if (!state.meta) return std::optional<std::uint64_t>();
  const Prefixes p = PrefixesOf(key, state.meta->version);
  CAIRN_ASSIGN_OR_RETURN(std::optional<double> score, StoredScore(ks, key, p, member));
  if (!score) return std::optional<std::uint64_t>();
  std::string target;
  AppendScore(&target, *score);
  target.append(member);
  Walk walk(ks.members, p.scores);
  std::uint64_t rank = 0;
  for (walk.SeekFirst({}); walk.Valid() && walk.Suffix() != target; walk.Step(false)) ++rank;
  CAIRN_RETURN_IF_ERROR(walk.status(key));
  if (!walk.Valid() || rank >= state.meta->size) {
    return Status::Corruption("sorted set '" + Printable(key) +
                              "' lacks the index row of a member");
  }
  return std::optional<std::uint64_t>(reverse ? state.meta->size - 1 - rank : rank);
}

Result<ZSetPage> Scan(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                      const MemberScanRequest& request) {
  CAIRN_ASSIGN_OR_RETURN(HashPage rows, member_map_ops::Scan(kZSetKind, ks, now_ms, key, request));
  ZSetPage page;
  page.entries.reserve(rows.entries.size());
  for (HashEntry& e : rows.entries) {
    CAIRN_ASSIGN_OR_RETURN(double score, ScoreOf(e.value, key));
    page.entries.push_back({std::move(e.field), score});
  }
  page.cursor = std::move(rows.cursor);
  return page;
}

}  // namespace cairn::internal::zset_ops
