// Idempotency records as native commands: IDEM.CLAIM, IDEM.COMPLETE, IDEM.FAIL, IDEM.EXTEND,
// IDEM.GET, IDEM.DEL, over the server's cairn::IdempotencyStore (server/docs/idempotency.md).
//
// The RESP key is the record's business key, in the empty namespace and version: a program
// using the library with IdempotencyKey::Make(key) shares records with these commands, and
// clients that want scoping put it in the key ("tenant-a:order-1234"), as Redis users do.
// Every argument is parsed and checked before the store is touched, so a malformed command
// changes nothing.
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "cairn/idempotency.h"
#include "cairn/limits.h"
#include "commands/all_commands.h"
#include "execution/command_table.h"
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {
namespace {

// The library's defaults (RunOptions), so that a bare IDEM.CLAIM / IDEM.COMPLETE behaves like
// IdempotencyStore::Run.
constexpr std::int64_t kDefaultLockMs = 30'000;
constexpr std::int64_t kDefaultResultTtlMs = 24LL * 60 * 60 * 1000;

// Owner-checked calls answer with this error rather than a value: a client that ignores the
// reply of COMPLETE must not go on believing its result was stored.
constexpr std::string_view kNotOwnerError =
    "ERR claim does not own this key (no such claim, its lock expired, or it was settled or taken "
    "over)";

IdempotencyStore& Engine(CommandContext& ctx) { return ctx.server.engines().idempotency; }

// One field of a reply map. Strings are views: the map is written before they go away.
struct Field {
  std::string_view name;
  std::variant<std::int64_t, std::string_view> value;
};

// A RESP3 map, or a flat array name, value, … under RESP2 (ReplyWriter::MapHeader).
void WriteMap(resp::ReplyWriter& reply, const std::vector<Field>& fields) {
  reply.MapHeader(fields.size());
  for (const Field& field : fields) {
    reply.Bulk(field.name);
    if (const auto* n = std::get_if<std::int64_t>(&field.value)) {
      reply.Integer(*n);
    } else {
      reply.Bulk(std::get<std::string_view>(field.value));
    }
  }
}

Field Int(std::string_view name, std::int64_t value) { return {name, value}; }
Field Str(std::string_view name, std::string_view value) { return {name, value}; }
// Fencing tokens are unsigned; one counter per store will not pass INT64_MAX.
Field Token(std::string_view name, std::uint64_t value) {
  return {name, static_cast<std::int64_t>(value)};
}

// The key argument as the library's key, or the error reply (empty, too long).
std::optional<IdempotencyKey> ParseKey(CommandContext& ctx) {
  Result<IdempotencyKey> key = IdempotencyKey::Make(ctx.args[1]);
  if (!key.ok()) {
    ReplyStatus(ctx.reply, key.status());
    return std::nullopt;
  }
  return std::move(*key);
}

// A lock or result duration in milliseconds: an integer (else Redis's "not an integer") in
// (0, kMaxTtlMs] (else Redis's "invalid expire time", as SET PX 0 answers). Replies the error
// itself and returns nullopt when the argument is bad.
Parsed<std::int64_t> TakeMs(OptionParser& p, std::string_view command) {
  Parsed<std::int64_t> ms = p.Integer();
  if (ms.ok() && (*ms <= 0 || *ms > kMaxTtlMs)) {
    return Parsed<std::int64_t>::Error(InvalidExpire(command));
  }
  return ms;
}

// Replies to an owner-checked call: +OK, the not-owner error, or the library's error.
void ReplyOwner(CommandContext& ctx, const Result<OwnerResult>& result) {
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  if (*result == OwnerResult::kNotOwner) return ctx.reply.Error(kNotOwnerError);
  ctx.reply.Ok();
}

// The fields that describe a stored outcome: a success's status code and response, or a
// permanent failure's error message.
void AppendOutcome(std::vector<Field>& fields, const Outcome& outcome) {
  if (outcome.kind == Outcome::Kind::kPermanentFailure) {
    fields.push_back(Str("error", outcome.body));
  } else {
    fields.push_back(Int("status_code", outcome.status_code));
    fields.push_back(Str("response", outcome.body));
  }
}

std::string_view OutcomeName(const Outcome& outcome) {
  return outcome.kind == Outcome::Kind::kPermanentFailure ? "failed" : "completed";
}

// IDEM.CLAIM key fingerprint [LOCK ms] [JSON]
//
// The fingerprint argument is hashed with Fingerprint::OfBytes, so it may be a digest the
// client computed or the request itself; with JSON it is parsed and hashed canonically
// (Fingerprint::OfJson), so bodies that differ only in key order or spacing are the same
// request.
void Claim(CommandContext& ctx) {
  std::optional<std::int64_t> lock_ms;
  bool json = false;
  OptionParser p(ctx.args, 3);
  while (!p.Done()) {
    if (!lock_ms && p.Word("lock")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, lock_ms, TakeMs(p, "idem.claim"));
    } else if (!json && p.Word("json")) {
      json = true;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  const std::optional<IdempotencyKey> key = ParseKey(ctx);
  if (!key) return;
  Fingerprint fingerprint;
  if (json) {
    Result<Fingerprint> parsed = Fingerprint::OfJson(ctx.args[2]);
    if (!parsed.ok())
      return ctx.reply.Error("ERR invalid JSON fingerprint: " + parsed.status().message());
    fingerprint = *parsed;
  } else {
    fingerprint = Fingerprint::OfBytes(ctx.args[2]);
  }

  Result<ClaimResult> result =
      Engine(ctx).Claim(*key, fingerprint, lock_ms.value_or(kDefaultLockMs));
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  std::vector<Field> fields;
  std::string stored_hex, request_hex;  // Outlive the map's views.
  if (const auto* claimed = std::get_if<Claimed>(&*result)) {
    fields = {Str("outcome", "claimed"), Str("claim_id", claimed->claim_id),
              Token("fencing_token", claimed->fencing_token), Int("attempt", claimed->attempt),
              Int("lock_expires_at_ms", claimed->lock_expires_at_ms)};
  } else if (const auto* completed = std::get_if<Completed>(&*result)) {
    fields = {Str("outcome", OutcomeName(completed->outcome))};
    AppendOutcome(fields, completed->outcome);
  } else if (const auto* busy = std::get_if<InProgress>(&*result)) {
    fields = {Str("outcome", "in_progress"), Int("attempt", busy->attempt),
              Int("lock_expires_in_ms", busy->expires_in_ms)};
  } else {
    stored_hex = std::get<Mismatch>(*result).stored.ToHex();
    request_hex = fingerprint.ToHex();
    fields = {Str("outcome", "mismatch"), Str("fingerprint", request_hex),
              Str("stored_fingerprint", stored_hex)};
  }
  WriteMap(ctx.reply, fields);
}

// IDEM.COMPLETE key claim_id response [STATUS code] [TTL ms]
void Complete(CommandContext& ctx) {
  Outcome outcome;
  outcome.body = std::string(ctx.args[3]);
  bool has_status = false;
  std::optional<std::int64_t> ttl_ms;
  OptionParser p(ctx.args, 4);
  while (!p.Done()) {
    if (!has_status && p.Word("status")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::int64_t code, p.Integer());
      if (code < std::numeric_limits<std::int32_t>::min() ||
          code > std::numeric_limits<std::int32_t>::max()) {
        return ctx.reply.Error(kNotInteger);
      }
      outcome.status_code = static_cast<std::int32_t>(code);
      has_status = true;
    } else if (!ttl_ms && p.Word("ttl")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, ttl_ms, TakeMs(p, "idem.complete"));
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  const std::optional<IdempotencyKey> key = ParseKey(ctx);
  if (!key) return;
  ReplyOwner(
      ctx, Engine(ctx).Complete(*key, ctx.args[2], outcome, ttl_ms.value_or(kDefaultResultTtlMs)));
}

// IDEM.FAIL key claim_id [RETRYABLE | PERMANENT] [REASON text] [TTL ms]
//
// RETRYABLE (the default) gives the claim back, so the next IDEM.CLAIM runs the request again;
// PERMANENT stores the reason as the outcome that duplicates receive. REASON and TTL describe
// that stored outcome, so they are refused with RETRYABLE, which stores nothing.
void Fail(CommandContext& ctx) {
  std::optional<FailureKind> kind;
  std::optional<std::string_view> reason;
  std::optional<std::int64_t> ttl_ms;
  OptionParser p(ctx.args, 3);
  while (!p.Done()) {
    if (!kind && p.Word("retryable")) {
      kind = FailureKind::kTransient;
    } else if (!kind && p.Word("permanent")) {
      kind = FailureKind::kPermanent;
    } else if (!reason && p.Word("reason")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, reason, p.Text());
    } else if (!ttl_ms && p.Word("ttl")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, ttl_ms, TakeMs(p, "idem.fail"));
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  if (kind.value_or(FailureKind::kTransient) == FailureKind::kTransient && (reason || ttl_ms)) {
    return ctx.reply.Error("ERR REASON and TTL apply only to PERMANENT failures");
  }
  const std::optional<IdempotencyKey> key = ParseKey(ctx);
  if (!key) return;
  ReplyOwner(ctx, Engine(ctx).Fail(*key, ctx.args[2], kind.value_or(FailureKind::kTransient),
                                   reason.value_or(""), ttl_ms.value_or(kDefaultResultTtlMs)));
}

// IDEM.EXTEND key claim_id ms
void Extend(CommandContext& ctx) {
  OptionParser p(ctx.args, 3);
  CAIRN_ARG_OR_REPLY(ctx.reply, const std::int64_t lock_ms, TakeMs(p, "idem.extend"));
  const std::optional<IdempotencyKey> key = ParseKey(ctx);
  if (!key) return;
  ReplyOwner(ctx, Engine(ctx).Extend(*key, ctx.args[2], lock_ms));
}

std::string_view StateName(IdempotencyState state) {
  switch (state) {
    case IdempotencyState::kInProgress:
      return "in_progress";
    case IdempotencyState::kReleased:
      return "released";
    case IdempotencyState::kCompleted:
      return "completed";
    case IdempotencyState::kFailed:
      return "failed";
  }
  return "unknown";
}

// IDEM.GET key: the whole record as a map, or nil.
void Get(CommandContext& ctx) {
  const std::optional<IdempotencyKey> key = ParseKey(ctx);
  if (!key) return;
  Result<std::optional<IdempotencyRecord>> record = Engine(ctx).Get(*key);
  if (!record.ok()) return ReplyStatus(ctx.reply, record.status());
  if (!*record) return ctx.reply.Null();
  const IdempotencyRecord& r = **record;
  const std::string fingerprint = r.fingerprint.ToHex();
  std::vector<Field> fields = {Str("state", StateName(r.state)),
                               Str("fingerprint", fingerprint),
                               Str("claim_id", r.claim_id),
                               Token("fencing_token", r.fencing_token),
                               Int("attempt", r.attempt),
                               Int("created_at_ms", r.created_at_ms),
                               Int("updated_at_ms", r.updated_at_ms)};
  // The lock means something only while a claim holds the record.
  if (r.state == IdempotencyState::kInProgress) {
    fields.push_back(Int("lock_expires_at_ms", r.lock_expires_at_ms));
  }
  fields.push_back(Int("expires_at_ms", r.expires_at_ms));
  if (r.outcome) AppendOutcome(fields, *r.outcome);
  WriteMap(ctx.reply, fields);
}

// IDEM.DEL key: 1 if a record was removed, whatever its state.
void Del(CommandContext& ctx) {
  const std::optional<IdempotencyKey> key = ParseKey(ctx);
  if (!key) return;
  Result<bool> deleted = Engine(ctx).Delete(*key);
  if (!deleted.ok()) return ReplyStatus(ctx.reply, deleted.status());
  ctx.reply.Integer(*deleted ? 1 : 0);
}

}  // namespace

void RegisterIdempotencyCommands(CommandTable& table) {
  table.Register({"idem.claim", -3, kWrite | kFast | kNative, 1, 1, 1, Claim, "idempotency",
                  "Claims an idempotency key for a request, or returns what the key already holds.",
                  kNativeSince});
  table.Register({"idem.complete", -4, kWrite | kNative, 1, 1, 1, Complete, "idempotency",
                  "Stores the response of a claimed request, if the claim still owns the key.",
                  kNativeSince});
  table.Register({"idem.fail", -3, kWrite | kNative, 1, 1, 1, Fail, "idempotency",
                  "Releases a claim for a retry, or stores a permanent failure as its outcome.",
                  kNativeSince});
  table.Register({"idem.extend", 4, kWrite | kFast | kNative, 1, 1, 1, Extend, "idempotency",
                  "Extends the lock of a claim that still owns the key.", kNativeSince});
  table.Register({"idem.get", 2, kReadOnly | kFast | kNative, 1, 1, 1, Get, "idempotency",
                  "Returns an idempotency record.", kNativeSince});
  table.Register({"idem.del", 2, kWrite | kFast | kNative, 1, 1, 1, Del, "idempotency",
                  "Deletes an idempotency record, whatever its state.", kNativeSince});
}

}  // namespace cairn::server
