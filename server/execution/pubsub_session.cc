#include "execution/pubsub_session.h"

#include <string>
#include <vector>

#include "args/errors.h"
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {

void LeavePubSub(ServerState& server, Session& session, std::string* out) {
  pubsub::ClientSubscriptions& subs = session.pubsub;
  for (const std::string& channel : subs.channels()) {
    server.pubsub().Unsubscribe(channel, session.id());
  }
  for (const std::string& pattern : subs.patterns()) {
    server.pubsub().PUnsubscribe(pattern, session.id());
  }
  subs.Clear();
  // Nothing more can arrive now: what is queued is everything.
  if (out != nullptr && subs.mailbox) subs.mailbox->TakeInto(out);
}

void PublishStaged(ServerState& server, Session& session) {
  if (session.staged_messages.empty()) return;
  const OutputBufferLimit limit = server.pubsub_output_limit();
  const std::int64_t now = server.clock().NowMs();
  for (const Session::StagedMessage& m : session.staged_messages) {
    server.pubsub().Publish(m.channel, m.payload, limit, now);
  }
  session.staged_messages.clear();
}

std::string SubscribedModeError(const CommandSpec& spec,
                                const std::vector<std::string_view>& args) {
  return "ERR Can't execute '" + spec.FullName(args) +
         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
         "context";
}

}  // namespace cairn::server
