// What the library-mode child tells the parent, one line per event on its stdout, and the names
// both sides give to what the child writes.
//
//   ready                      the store is open: the parent may start its kill timer
//   b <thread> <seq> <op> …    the thread is about to make library call number <seq>
//   a <thread> <seq> …         that call returned OK; the words after <seq> are its answer
//   e <thread> <seq> <status>  that call failed: its outcome is unknown, the thread stops
//
// A line is written with one write(2) of less than PIPE_BUF bytes, so lines of different
// threads never interleave, and an "a" line is written only after the library returned: every
// "a" line the parent reads is an acknowledgement. A "b" line without its "a" is a call in
// flight at the kill: it may have happened or not.
//
// The ops, their words in the "b" line and the answer in the "a" line:
//   set <s> <value>        Store::Set                              —
//   del <s>                Store::Delete                           1 | 0 (existed)
//   txn <p> <token>|-      a Transaction setting (or deleting) both keys of pair <p>   —
//   hset <h> <field> <v>   Records::HashSet                        fields added (0 | 1)
//   hdel <h> <field>       Records::HashDelete                     fields removed (0 | 1)
//   sadd <S> <member>      Records::SetAdd                         members added
//   srem <S> <member>      Records::SetRemove                      members removed
//   push <l> <value>       Records::ListPush at the tail           the new length
//   pop <l>                Records::ListPop at the head            the value | -
//   acquire <r>            LeaseManager::TryAcquire                <fencing> | busy
//   release <r>            LeaseManager::Release of its lease      done | notowner
//   enqueue <j>            Queue::Enqueue with job id <j>          created | duplicate
//   claim                  Queue::Claim of one job of its queue    <j> <attempt> | none
//   ack <j>                Queue::Ack of a job it claimed          done | notowner
//   iclaim <i>             IdempotencyStore::Claim                 claimed | completed <body>
//                                                                  | inprogress | mismatch
//   icomplete <i> <body>   IdempotencyStore::Complete              done | notowner
//   zadd <z> <member> <score>  Records::ZSetPut                    members added (0 | 1)
//   zrem <z> <member>      Records::ZSetRemove                     members removed (0 | 1)
//   xadd <x> <id> <value>  Records::StreamAdd with the explicit id <ms>-<seq> (one field "f")
//                                                                  the id | the outcome
//   xtrim <x> <maxlen>     Records::StreamTrim to at most <maxlen> entries   entries removed
//   take <b> <cost>        RateLimiter::Take on the bucket below   allowed|refused <remaining>
//   reset <b>              RateLimiter::Reset                      1 | 0 (had state)
// <s> <p> <h> <S> <l> <r> <z> <x> <b> name entities of the thread (below); <j> and <i> are made
// up by the child, unique per cycle. Values, tokens and bodies contain no spaces. A stream id's
// <ms> is the cycle + 1 and <seq> the call's, so ids grow over the whole run.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::crash::library {

// Entities per thread of each fixed kind: strings s0.., pairs p0.., hashes h0.., sets S0..,
// lists l0.., lease resources r0.., sorted sets z0.., streams x0.., rate limit buckets b0...
inline constexpr int kStrings = 8;
inline constexpr int kPairs = 4;
inline constexpr int kHashes = 2;
inline constexpr int kSets = 2;
inline constexpr int kLists = 2;
inline constexpr int kLeases = 2;
inline constexpr int kZSets = 2;
inline constexpr int kStreams = 2;
inline constexpr int kBuckets = 2;
// Hash fields f0.. and (sorted) set members m0.. the ops choose from.
inline constexpr int kFields = 6;
inline constexpr int kMembers = 8;

// A token bucket that does not refill within a run (the longest refill the limiter accepts:
// a token a day), so that the tokens taken are state the store must keep, like any other.
inline constexpr std::int64_t kBucketCapacity = 1'000'000;
inline constexpr std::int64_t kBucketRefillMs = 86'400'000;
inline constexpr std::int64_t kMaxTakeCost = 100;

// Short lapses, so that what a killed child held (a lease, a claimed job, an idempotency claim)
// is free again early in the next cycle.
inline constexpr std::int64_t kLeaseTtlMs = 400;
inline constexpr std::int64_t kVisibilityMs = 400;
inline constexpr std::int64_t kIdemLockMs = 400;
inline constexpr std::int64_t kIdemResultTtlMs = 7LL * 24 * 60 * 60 * 1000;

// The exit status of a child that cut the power (as DEBUG FAULT POWERCUT's server).
inline constexpr int kPowerCutExit = 137;

// Every name the thread writes is under this prefix, so threads never share a key.
inline std::string Prefix(int thread) { return "L" + std::to_string(thread) + "/"; }
// The store key of a string, hash, set, list, sorted set or stream entity, the resource of a
// lease, the key of a rate limit.
inline std::string KeyOf(int thread, const std::string& name) { return Prefix(thread) + name; }
// The two keys of a pair.
inline std::string PairKey(int thread, const std::string& pair, char which) {
  return Prefix(thread) + pair + which;
}
inline std::string QueueOf(int thread) { return Prefix(thread) + "q"; }
inline constexpr std::string_view kGroup = "g";
inline constexpr std::string_view kIdemNamespace = "crashtest";
// A job's payload, checked when it is claimed.
inline std::string PayloadOf(const std::string& job) { return "payload-" + job; }
// A sorted set member's score as the lines and the model's states write it: the shortest text
// that reads back as the same double.
inline std::string ScoreText(double score) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, score);
  return ec == std::errc() ? std::string(buf, end) : "?";
}
// A stream id as "<ms>-<seq>".
inline std::string IdText(std::uint64_t ms, std::uint64_t seq) {
  return std::to_string(ms) + "-" + std::to_string(seq);
}

struct Line {
  char kind = 0;  // 'r' (ready), 'b', 'a' or 'e'
  int thread = -1;
  std::uint32_t seq = 0;
  std::vector<std::string> words;  // after <seq>; for 'e', one word: the whole status
};

// Parses one line (without its newline); false if it is not one of the forms above.
bool ParseLine(std::string_view text, Line* line);

}  // namespace cairn::crash::library
