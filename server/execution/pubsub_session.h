// Pub/sub as the rest of the server meets it: a client leaving all its subscriptions (RESET,
// disconnect), the messages PUBLISH stages inside a transaction going out after its commit,
// and the error of a RESP2 client in subscribed mode. The commands themselves (SUBSCRIBE …
// PUBSUB) are in pubsub_commands.cc; the channel registry and the mailboxes in pubsub/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "execution/command.h"
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {

// Unsubscribes the session from every channel and pattern. With `out`, the messages already
// queued for it are appended there (RESET: they precede its reply, as they would in Redis).
void LeavePubSub(ServerState& server, Session& session, std::string* out);

// Publishes the messages the session's PUBLISH commands staged inside EXEC or a script, in
// order. Called once their transaction has committed (net/connection.cc), and by a PUBLISH
// that runs alone, so that a client's messages keep their order.
void PublishStaged(ServerState& server, Session& session);

// Forgets the staged messages after the first `keep`: they came from an attempt that was
// rolled back (a script that failed, an attempt of a store transaction that runs again).
inline void DropStagedMessages(Session& session, std::size_t keep) {
  if (session.staged_messages.size() > keep) session.staged_messages.resize(keep);
}

// "ERR Can't execute '<name>': only (P|S)SUBSCRIBE / …": what a RESP2 client with
// subscriptions gets for a command not flagged kSubscribedMode.
std::string SubscribedModeError(const CommandSpec& spec, const std::vector<std::string_view>& args);

}  // namespace cairn::server
