// Runs one client command: finds it in the table, checks its arity, the auth gate and RESP2's
// subscribed mode, queues it inside MULTI, touches the keys a write command names (for WATCH), and
// calls its handler. Errors are worded as Redis words them, in the order Redis checks them (unknown
// command, arity, NOAUTH, then subscribed mode). Runs on the connection's thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "execution/command.h"
#include "execution/server_state.h"
#include "execution/session.h"
#include "resp/reply_writer.h"

namespace cairn::server {

// `spec` is the table's entry for args[0] (nullptr: no such command), which the caller has
// looked up already. `data` is the store, or the write batch's records (`txn` its
// transaction) for a command flagged kBatch.
void Dispatch(ServerState& server, Session& session, const CommandSpec* spec,
              const std::vector<std::string_view>& args, resp::ReplyWriter& reply, Records& data,
              Transaction* txn);

// Runs a command whose name, arity and queuing were checked (MULTI's queue, at EXEC) against
// `data` (the EXEC transaction).
void RunChecked(ServerState& server, Session& session, const CommandSpec& spec,
                const std::vector<std::string_view>& args, resp::ReplyWriter& reply, Records& data,
                Transaction* txn);

// RunChecked on a transaction, under a save point when the command may write several rows
// (CommandSpec::MayHalfApply): if it replies with an error, its writes are taken back, so
// that an error means nothing was written. For EXEC's commands and scripts' redis.call.
void RunUndoingOnError(ServerState& server, Session& session, const CommandSpec& spec,
                       const std::vector<std::string_view>& args, resp::ReplyWriter& reply,
                       Records& data, Transaction& txn);

// The keys of a command by its declared key positions.
std::vector<std::string_view> CommandKeys(const CommandSpec& spec,
                                          const std::vector<std::string_view>& args);

// "ERR unknown command '<name>', with args beginning with: '<a>' '<b>' ".
std::string UnknownCommand(const std::vector<std::string_view>& args);

}  // namespace cairn::server
