// COMMAND INFO and COMMAND DOCS replies from the table's declarations, in the shapes Redis 7
// gives them (redis-cli and client libraries read them for hints and key positions).
#include <string>
#include <vector>

#include "execution/command.h"
#include "resp/reply_writer.h"

namespace cairn::server {

namespace {

std::vector<std::string_view> FlagNames(const CommandSpec& spec) {
  std::vector<std::string_view> names;
  if (spec.Has(kWrite)) names.push_back("write");
  if (spec.Has(kReadOnly)) names.push_back("readonly");
  if (spec.Has(kAdmin)) names.push_back("admin");
  if (spec.Has(kPubSub)) names.push_back("pubsub");
  if (spec.Has(kNoScript)) names.push_back("noscript");
  if (spec.Has(kLoading)) names.push_back("loading");
  if (spec.Has(kStale)) names.push_back("stale");
  if (spec.Has(kNoAuth)) names.push_back("no_auth");
  if (spec.Has(kFast)) names.push_back("fast");
  if (spec.Has(kBlocking) || spec.Has(kBlocksOnRequest)) names.push_back("blocking");
  if (spec.Has(kNoMulti)) names.push_back("no_multi");
  if (spec.Has(kMovableKeys)) names.push_back("movablekeys");
  return names;
}

}  // namespace

void CommandInfo(resp::ReplyWriter& reply, const CommandSpec& spec) {
  reply.ArrayHeader(10);
  reply.Bulk(spec.name);
  reply.Integer(spec.arity);
  const std::vector<std::string_view> flags = FlagNames(spec);
  reply.SetHeader(flags.size());
  for (std::string_view f : flags) reply.SimpleString(f);
  reply.Integer(spec.first_key);
  reply.Integer(spec.last_key);
  reply.Integer(spec.key_step);
  reply.SetHeader(1);
  reply.SimpleString("@" + std::string(spec.group == "generic" ? "keyspace" : spec.group));
  reply.ArrayHeader(0);  // Tips.
  reply.ArrayHeader(0);  // Key specifications (first/last/step above describe the keys).
  reply.ArrayHeader(0);  // Subcommands.
}

void CommandDocs(resp::ReplyWriter& reply, const CommandSpec& spec) {
  reply.MapHeader(3);
  reply.Bulk("summary");
  reply.Bulk(spec.summary);
  reply.Bulk("since");
  reply.Bulk(spec.since);
  reply.Bulk("group");
  reply.Bulk(spec.group);
}

}  // namespace cairn::server
