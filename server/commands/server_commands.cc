// Server commands: INFO, CONFIG, DBSIZE, FLUSHDB, FLUSHALL, TIME, SHUTDOWN, WAIT, COMMAND.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "commands/all_commands.h"
#include "commands/keyspace_scan.h"
#include "config/server_config.h"
#include "execution/atomically.h"
#include "execution/command_table.h"
#include "execution/server_state.h"
#include "server_version.h"

namespace cairn::server {
namespace {

// What DBSIZE and INFO's keyspace section report, counted by a scan (Redis keeps these
// counts; the store does not): the keys, those with an expiry, and their time to live in ms.
struct KeyspaceCounts {
  std::int64_t keys = 0;
  std::int64_t expires = 0;
  std::int64_t ttl_sum_ms = 0;
};

Result<KeyspaceCounts> CountKeys(Records& data, std::int64_t now) {
  KeyspaceCounts counts;
  Status s = ScanKeyspace(data, "", std::nullopt, [&](const ScanEntry& e) {
    ++counts.keys;
    if (e.expires_at_ms != 0) {
      ++counts.expires;
      counts.ttl_sum_ms += std::max<std::int64_t>(e.expires_at_ms - now, 0);
    }
    return true;
  });
  if (!s.ok()) return s;
  return counts;
}

std::string InfoSection(ServerState& server, std::string_view name, Records& data) {
  const ServerConfig config = server.config();
  const std::int64_t now = server.clock().NowMs();
  std::string out;
  auto line = [&](std::string_view key, const std::string& value) {
    out.append(key).append(":").append(value).append("\r\n");
  };
  if (name == "server") {
    out += "# Server\r\n";
    line("redis_version", std::string(kRedisVersion));
    line("cairn_version", std::string(kCairnVersion));
    line("redis_mode", "standalone");
    line("os", "Linux");
    line("arch_bits", std::to_string(sizeof(void*) * 8));
    line("process_id", std::to_string(::getpid()));
    line("tcp_port", std::to_string(server.tcp_port));
    const std::int64_t up = (now - server.started_ms()) / 1000;
    line("uptime_in_seconds", std::to_string(up));
    line("uptime_in_days", std::to_string(up / 86400));
    line("executable", "cairn-server");
  } else if (name == "clients") {
    out += "# Clients\r\n";
    line("connected_clients", std::to_string(server.client_count()));
    line("maxclients", std::to_string(config.maxclients));
    line("blocked_clients", std::to_string(server.blocked_clients.load()));
  } else if (name == "memory") {
    out += "# Memory\r\n";
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    const std::int64_t rss = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
    line("used_memory", std::to_string(rss));
    line("used_memory_rss", std::to_string(rss));
    line("number_of_cached_scripts", std::to_string(server.scripts().size()));
    line("used_memory_scripts_eval", std::to_string(server.scripts().body_bytes()));
    line("maxmemory", "0");
    line("maxmemory_policy", "noeviction");
  } else if (name == "persistence") {
    out += "# Persistence\r\n";
    line("loading", "0");
    line("aof_enabled", config.durability == Durability::kNone ? "0" : "1");
    line("cairn_durability", std::string(DurabilityName(config.durability)));
    line("cairn_dir", config.dir);
    // Whether the store takes writes (Redis's aof_last_write_status), and if not, why and
    // since when; writes resume on their own once the cause is gone.
    const StoreHealth health = server.store().Health();
    line("aof_last_write_status", health.writable() ? "ok" : "err");
    std::string error = health.write_status.message();
    for (char& c : error) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    line("cairn_write_error", error);
    line("cairn_write_stopped_at", std::to_string(health.stopped_at_ms / 1000));
    line("cairn_write_resumed_at", std::to_string(health.resumed_at_ms / 1000));
    line("cairn_write_stops", std::to_string(health.stops));
    line("cairn_disk_free_bytes",
         health.free_disk_bytes ? std::to_string(*health.free_disk_bytes) : "");
    line("cairn_min_free_disk", std::to_string(config.min_free_disk_bytes));
  } else if (name == "stats") {
    out += "# Stats\r\n";
    line("total_connections_received", std::to_string(server.connections_received.load()));
    line("total_commands_processed", std::to_string(server.commands_processed.load()));
    line("total_net_input_bytes", std::to_string(server.net_input_bytes.load()));
    line("total_net_output_bytes", std::to_string(server.net_output_bytes.load()));
    line("rejected_connections", std::to_string(server.connections_rejected.load()));
    line("pubsub_channels", std::to_string(server.pubsub().ChannelCount()));
    line("pubsub_patterns", std::to_string(server.pubsub().PatternCount()));
    line("evicted_scripts", std::to_string(server.scripts().evictions()));
  } else if (name == "replication") {
    out += "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n";
  } else if (name == "keyspace") {
    out += "# Keyspace\r\n";
    Result<KeyspaceCounts> counts = CountKeys(data, now);
    if (counts.ok() && counts->keys > 0) {
      const std::int64_t avg_ttl = counts->expires == 0 ? 0 : counts->ttl_sum_ms / counts->expires;
      line("db0", "keys=" + std::to_string(counts->keys) + ",expires=" +
                      std::to_string(counts->expires) + ",avg_ttl=" + std::to_string(avg_ttl));
    }
  }
  return out;
}

// INFO [section ...]. The keyspace section is left out of the default sections (INFO with no
// argument, or "default"): counting keys is a scan of every key here, and clients send INFO
// on every connect (ioredis's ready check, BullMQ's version check), which would make each
// connection cost O(keys). "INFO keyspace", "all" and "everything" include it.
void Info(CommandContext& ctx) {
  static constexpr std::string_view kDefault[] = {"server",      "clients", "memory",
                                                  "persistence", "stats",   "replication"};
  std::vector<std::string> wanted;
  const auto add_defaults = [&] {
    wanted.insert(wanted.end(), std::begin(kDefault), std::end(kDefault));
  };
  for (std::size_t i = 1; i < ctx.args.size(); ++i) {
    const std::string section = ToLower(ctx.args[i]);
    if (section == "default") {
      add_defaults();
    } else if (section == "all" || section == "everything") {
      add_defaults();
      wanted.push_back("keyspace");
    } else {
      wanted.push_back(section);
    }
  }
  if (ctx.args.size() == 1) add_defaults();
  std::string out;
  for (const std::string& section : wanted) {
    const std::string text = InfoSection(ctx.server, section, ctx.data);
    if (text.empty()) continue;
    if (!out.empty()) out += "\r\n";
    out += text;
  }
  ctx.reply.Verbatim("txt", out);
}

void Config(CommandContext& ctx) {
  const std::string sub = ToLower(ctx.args[1]);
  if (sub == "get") {
    if (ctx.args.size() < 3) return ctx.reply.Error(WrongArity("config|get"));
    std::vector<std::pair<std::string, std::string>> pairs;
    const ServerConfig config = ctx.server.config();
    for (std::size_t i = 2; i < ctx.args.size(); ++i) {
      for (auto& pair : GetParameters(ctx.args[i], config)) {
        bool seen = false;
        for (const auto& p : pairs) seen = seen || p.first == pair.first;
        if (!seen) pairs.push_back(std::move(pair));
      }
    }
    ctx.reply.MapHeader(pairs.size());
    for (const auto& [name, value] : pairs) {
      ctx.reply.Bulk(name);
      ctx.reply.Bulk(value);
    }
  } else if (sub == "set") {
    if (ctx.args.size() < 4 || ctx.args.size() % 2 != 0) {
      return ctx.reply.Error(WrongArity("config|set"));
    }
    // All or nothing: apply to a copy, then publish it.
    Status s = ctx.server.UpdateConfig([&](ServerConfig& live) {
      ServerConfig next = live;
      for (std::size_t i = 2; i + 1 < ctx.args.size(); i += 2) {
        Status one = SetParameter(ctx.args[i], ctx.args[i + 1], /*runtime=*/true, &next);
        if (!one.ok()) return one;
      }
      if (next.maxclients > live.maxclients && next.maxclients > ctx.server.maxclients_cap()) {
        return Status::InvalidArgument(
            "CONFIG SET failed (possibly related to argument 'maxclients') - The operating "
            "system is not able to handle the specified number of clients, try with " +
            std::to_string(ctx.server.maxclients_cap()));
      }
      live = std::move(next);
      return Status::Ok();
    });
    if (!s.ok()) return ctx.reply.Error("ERR " + std::string(s.message()));
    ctx.reply.Ok();
  } else if (sub == "resetstat") {
    if (ctx.args.size() != 2) return ctx.reply.Error(WrongArity("config|resetstat"));
    ctx.server.commands_processed.store(0);
    ctx.server.connections_received.store(0);
    ctx.server.connections_rejected.store(0);
    ctx.server.net_input_bytes.store(0);
    ctx.server.net_output_bytes.store(0);
    ctx.reply.Ok();
  } else if (sub == "rewrite") {
    ctx.reply.Error("ERR The server is running without a config file");
  } else {
    ctx.reply.Error("ERR unknown subcommand '" + std::string(ctx.args[1]) + "'. Try CONFIG HELP.");
  }
}

void DbSize(CommandContext& ctx) {
  Result<KeyspaceCounts> counts = CountKeys(ctx.data, ctx.server.clock().NowMs());
  if (!counts.ok()) return ReplyStatus(ctx.reply, counts.status());
  ctx.reply.Integer(counts->keys);
}

// FLUSHDB and FLUSHALL [ASYNC | SYNC]: deletes every key, in transactions of 1,000 keys (not
// atomic as a whole outside EXEC; see COMPATIBILITY.md).
void Flush(CommandContext& ctx) {
  if (ctx.args.size() > 2 || (ctx.args.size() == 2 && !EqualsIgnoreCase(ctx.args[1], "async") &&
                              !EqualsIgnoreCase(ctx.args[1], "sync"))) {
    return ctx.reply.Error(kSyntaxError);
  }
  ctx.server.watches().TouchAll();
  // Clients blocked on the deleted keys find out once the deletes are committed: a consumer
  // group's reader is answered that its stream is gone, the others wait on.
  ctx.session.touched_everything = true;
  while (true) {
    std::size_t deleted = 0;
    Status s = Atomically(ctx, [&](Records& data) -> Status {
      std::vector<std::string> keys;
      Status scan = ScanKeyspace(data, "", 1000, [&](const ScanEntry& e) {
        keys.push_back(e.key);
        return true;
      });
      if (!scan.ok()) return scan;
      deleted = keys.size();
      for (const std::string& key : keys) {
        Result<bool> d = data.Delete(key);
        if (!d.ok()) return d.status();
      }
      return Status::Ok();
    });
    if (!s.ok()) return ReplyStatus(ctx.reply, s);
    if (deleted < 1000) break;
  }
  ctx.reply.Ok();
}

void Time(CommandContext& ctx) {
  const std::int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(std::to_string(now_us / 1'000'000));
  ctx.reply.Bulk(std::to_string(now_us % 1'000'000));
}

void Shutdown(CommandContext& ctx) {
  // SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] | SHUTDOWN ABORT. The store is durable as its
  // durability says whatever the words; they are checked as Redis checks them.
  bool given[5] = {};  // nosave, save, now, force, abort
  OptionParser p(ctx.args, 1);
  while (!p.Done()) {
    const std::optional<std::size_t> word = p.OneOf({"nosave", "save", "now", "force", "abort"});
    if (!word) return ctx.reply.Error(kSyntaxError);
    given[*word] = true;
  }
  const bool abort = given[4], others = given[0] || given[1] || given[2] || given[3];
  if ((abort && others) || (given[0] && given[1])) return ctx.reply.Error(kSyntaxError);
  // ABORT cancels a shutdown that waits for replicas; a shutdown here never waits, so there
  // is none to cancel — and the server must not stop for a client that asked it not to.
  if (abort) return ctx.reply.Error("ERR No shutdown in progress.");
  // Redis closes the connection without a reply when the shutdown goes ahead.
  ctx.session.close_after_reply = true;
  if (ctx.server.request_shutdown) ctx.server.request_shutdown();
}

void Wait(CommandContext& ctx) {
  const std::optional<std::int64_t> replicas = ParseInt64(ctx.args[1]);
  const std::optional<std::int64_t> timeout = ParseInt64(ctx.args[2]);
  if (!replicas || !timeout) return ctx.reply.Error(kNotInteger);
  if (*timeout < 0) return ctx.reply.Error("ERR timeout is negative");
  ctx.reply.Integer(0);  // No replicas: nothing to wait for.
}

}  // namespace

void CommandInfo(resp::ReplyWriter& reply, const CommandSpec& spec);
void CommandDocs(resp::ReplyWriter& reply, const CommandSpec& spec);

namespace {

void Command(CommandContext& ctx) {
  const CommandTable& table = ctx.server.table();
  if (ctx.args.size() == 1) {
    ctx.reply.ArrayHeader(table.all().size());
    for (const CommandSpec& spec : table.all()) CommandInfo(ctx.reply, spec);
    return;
  }
  const std::string sub = ToLower(ctx.args[1]);
  if (sub == "count" && ctx.args.size() == 2) {
    ctx.reply.Integer(static_cast<std::int64_t>(table.all().size()));
  } else if (sub == "info") {
    if (ctx.args.size() == 2) {
      ctx.reply.ArrayHeader(table.all().size());
      for (const CommandSpec& spec : table.all()) CommandInfo(ctx.reply, spec);
      return;
    }
    ctx.reply.ArrayHeader(ctx.args.size() - 2);
    for (std::size_t i = 2; i < ctx.args.size(); ++i) {
      const CommandSpec* spec = table.Find(ctx.args[i]);
      spec ? CommandInfo(ctx.reply, *spec) : ctx.reply.NullArray();
    }
  } else if (sub == "docs") {
    std::vector<const CommandSpec*> specs;
    if (ctx.args.size() == 2) {
      for (const CommandSpec& spec : table.all()) specs.push_back(&spec);
    } else {
      for (std::size_t i = 2; i < ctx.args.size(); ++i) {
        if (const CommandSpec* spec = table.Find(ctx.args[i])) specs.push_back(spec);
      }
    }
    ctx.reply.MapHeader(specs.size());
    for (const CommandSpec* spec : specs) {
      ctx.reply.Bulk(spec->name);
      CommandDocs(ctx.reply, *spec);
    }
  } else if (sub == "list" && ctx.args.size() == 2) {
    ctx.reply.ArrayHeader(table.all().size());
    for (const CommandSpec& spec : table.all()) ctx.reply.Bulk(spec.name);
  } else {
    ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                    std::string(ctx.args[1]) + "'. Try COMMAND HELP.");
  }
}

}  // namespace

void RegisterServerCommands(CommandTable& table) {
  table.Register({"info", -1, kLoading | kStale, 0, 0, 0, Info, "server",
                  "Returns information and statistics about the server.", "1.0.0"});
  table.Register({"config", -2, kAdmin | kNoScript | kLoading | kStale | kSubcommands, 0, 0, 0,
                  Config, "server", "A container for server configuration commands.", "2.0.0"});
  table.Register({"dbsize", 1, kReadOnly | kFast, 0, 0, 0, DbSize, "server",
                  "Returns the number of keys in the database.", "1.0.0"});
  table.Register({"flushdb", -1, kWrite, 0, 0, 0, Flush, "server",
                  "Remove all keys from the current database.", "1.0.0"});
  table.Register({"flushall", -1, kWrite, 0, 0, 0, Flush, "server",
                  "Removes all keys from all databases.", "1.0.0"});
  table.Register({"time", 1, kLoading | kStale | kFast, 0, 0, 0, Time, "server",
                  "Returns the server time.", "2.6.0"});
  table.Register({"shutdown", -1, kAdmin | kNoScript | kNoMulti | kLoading | kStale, 0, 0, 0,
                  Shutdown, "server",
                  "Synchronously saves the database(s) to disk and shuts down the Redis server.",
                  "1.0.0"});
  table.Register(
      {"wait", 3, kNoScript, 0, 0, 0, Wait, "server",
       "Blocks until the asynchronous replication of all preceding write commands sent by the "
       "connection is completed.",
       "3.0.0"});
  table.Register({"command", -1, kLoading | kStale | kSubcommands, 0, 0, 0, Command, "server",
                  "Returns detailed information about all commands.", "2.8.13"});
}

}  // namespace cairn::server
