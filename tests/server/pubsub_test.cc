// Pub/sub over real sockets, with two io threads so that publisher and subscriber may live on
// different ones (connections are handed to the threads in turn): messages arrive in publish
// order, also from several publishers at once, while the subscriber sends nothing; pattern
// subscriptions get pmessages; UNSUBSCRIBE and PUNSUBSCRIBE confirm each name, and no message
// follows the last confirmation; a RESP2 subscriber may only (un)subscribe, PING, QUIT and
// RESET; RESP3 pushes interleave with ordinary replies; PUBSUB, CLIENT LIST and INFO report
// the subscriptions; PUBLISH inside MULTI and scripts sends only what commits; a subscriber
// that stops reading is disconnected at client-output-buffer-limit pubsub while the publisher
// goes on. Nothing here measures time: waits poll for a state with a generous deadline, and
// every read has a hang-detecting timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/support/raw_connection.h"
#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"

namespace cairn::test {
namespace {

// Joins the threads it holds when it goes, also when an assertion leaves the test early.
struct Threads {
  std::vector<std::thread> all;
  ~Threads() {
    for (std::thread& t : all) t.join();
  }
};

constexpr std::string_view kSubscribedError =
    "only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";

class PubSubTest : public ServerFixture {
 protected:
  // Two io threads: a connection and the next one are served by different threads.
  void StartServer(const Args& extra = {}) {
    Args args = {"--threads", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    Start(args);
  }

  static void Send(RespClient& c, const std::vector<std::string>& args) {
    ASSERT_TRUE(c.Send(RespClient::Encode(args)));
  }

  static std::string Next(RespClient& c) {
    std::optional<Reply> r = c.Read();
    EXPECT_TRUE(r.has_value()) << "nothing arrived before the read timeout";
    return r ? r->ToString() : "(nothing)";
  }

  // Sends a command and reads `n` frames (one per channel for SUBSCRIBE and the like).
  static std::vector<std::string> CallN(RespClient& c, const std::vector<std::string>& args,
                                        int n) {
    Send(c, args);
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(Next(c));
    return out;
  }

  // Polls `condition` until it holds; fails after a deadline meant to catch hangs only.
  template <typename Fn>
  static bool Eventually(Fn&& condition) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < give_up) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  std::string ClientList(const Args& filter = {}) {
    Args args = {"CLIENT", "LIST"};
    args.insert(args.end(), filter.begin(), filter.end());
    return Call(args).str;
  }

  static std::int64_t ClientId(RespClient& c) { return c.Call({"CLIENT", "ID"}).integer; }

  // A subscriber that stops reading: the server keeps its messages until they pass the
  // limit, then disconnects it; the publisher is never held up and goes on.
  void ExpectStalledSubscriberDisconnected(RespClient& publisher) {
    std::unique_ptr<RawConnection> stalled = RawConnection::Connect(server_->port());
    ASSERT_NE(stalled, nullptr);
    ASSERT_EQ(stalled->SendAll("CLIENT ID\r\n", 10'000), RawConnection::Io::kOk);
    ASSERT_EQ(stalled->ReceiveAtLeast(4, 10'000), RawConnection::Io::kOk);
    ASSERT_TRUE(Eventually([&] {
      stalled->ReceiveNow();
      return stalled->received().ends_with("\r\n");
    }));
    const std::string id = stalled->received().substr(1, stalled->received().size() - 3);
    stalled->received().clear();
    ASSERT_NE(ClientList({"ID", id}), "");
    const std::string subscribe = "*2\r\n$9\r\nSUBSCRIBE\r\n$7\r\nstalled\r\n";
    ASSERT_EQ(stalled->SendAll(subscribe, 10'000), RawConnection::Io::kOk);
    const std::string confirmation = "*3\r\n$9\r\nsubscribe\r\n$7\r\nstalled\r\n:1\r\n";
    ASSERT_EQ(stalled->ReceiveAtLeast(confirmation.size(), 10'000), RawConnection::Io::kOk);
    ASSERT_EQ(stalled->received(), confirmation);
    // From here on the test reads nothing from it.
    const std::string payload(64 * 1024, 'm');
    constexpr std::size_t kGiveUpBytes = 1024ull * 1024 * 1024;
    std::size_t published = 0;
    std::int64_t receivers = 1;
    while (receivers == 1 && published < kGiveUpBytes) {
      Reply r = publisher.Call({"PUBLISH", "stalled", payload});
      ASSERT_EQ(r.type, Reply::Type::kInteger) << r.ToString();
      receivers = r.integer;
      published += payload.size();
    }
    ASSERT_EQ(receivers, 0) << "still subscribed after " << published << " bytes";
    EXPECT_TRUE(Eventually([&] {
      return ClientList({"ID", id}).empty();
    })) << "CLIENT LIST still lists it";
    // The server closed the connection: the socket reaches its end once the test has drained
    // what the kernels held. (Its buffers keep their usual sizes: with a tiny receive window
    // the drain alone would take minutes.)
    EXPECT_EQ(stalled->ReceiveUntilClosed(30'000), RawConnection::Io::kOk);
    EXPECT_TRUE(stalled->peer_closed());
    EXPECT_LT(stalled->received().size(), published) << "it was not sent everything";
    std::ifstream log(dir_.Sub("server.log"));
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("client-output-buffer-limit pubsub"), std::string::npos) << text;
  }
};

TEST_F(PubSubTest, MessagesArriveInPublishOrderWhileTheSubscriberSendsNothing) {
  StartServer();
  std::unique_ptr<RespClient> subscriber = Connect();
  std::unique_ptr<RespClient> publisher = Connect();
  EXPECT_EQ(CallN(*subscriber, {"SUBSCRIBE", "news"}, 1),
            std::vector<std::string>{R"(["subscribe", "news", (integer) 1])"});

  // One pipeline of PUBLISH commands; every reply counts the one subscriber.
  constexpr int kMessages = 2000;
  std::string pipeline;
  for (int i = 0; i < kMessages; ++i) {
    pipeline += RespClient::Encode({"PUBLISH", "news", "m" + std::to_string(i)});
  }
  ASSERT_TRUE(publisher->Send(pipeline));
  for (int i = 0; i < kMessages; ++i) ASSERT_EQ(Next(*publisher), "(integer) 1") << i;
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(Next(*subscriber), R"(["message", "news", "m)" + std::to_string(i) + R"("])");
  }
  EXPECT_EQ(publisher->Call({"PUBLISH", "nobody", "x"}).ToString(), "(integer) 0");
}

TEST_F(PubSubTest, EachPublishersOrderHoldsWhenSeveralPublishAtOnce) {
  StartServer();
  std::unique_ptr<RespClient> subscriber = Connect();
  CallN(*subscriber, {"SUBSCRIBE", "c"}, 1);
  constexpr int kPublishers = 3, kEach = 500;
  std::vector<std::unique_ptr<RespClient>> publishers;
  for (int p = 0; p < kPublishers; ++p) publishers.push_back(Connect());
  std::atomic<int> bad_replies{0};
  Threads threads;
  for (int p = 0; p < kPublishers; ++p) {
    threads.all.emplace_back([&, p] {
      for (int i = 0; i < kEach; ++i) {
        const std::string payload = std::to_string(p) + ":" + std::to_string(i);
        if (publishers[p]->Call({"PUBLISH", "c", payload}).integer != 1) ++bad_replies;
      }
    });
  }
  std::vector<int> next(kPublishers, 0);
  for (int n = 0; n < kPublishers * kEach; ++n) {
    std::optional<Reply> r = subscriber->Read();
    ASSERT_TRUE(r && r->elements.size() == 3) << (r ? r->ToString() : "nothing");
    const std::string& payload = r->elements[2].str;
    const int p = std::stoi(payload.substr(0, payload.find(':')));
    const int i = std::stoi(payload.substr(payload.find(':') + 1));
    ASSERT_EQ(i, next[p]) << "publisher " << p << " out of order";
    ++next[p];
  }
  EXPECT_EQ(bad_replies.load(), 0);
  EXPECT_EQ(next, std::vector<int>(kPublishers, kEach));
}

TEST_F(PubSubTest, PatternSubscriptionsReceivePmessages) {
  StartServer();
  std::unique_ptr<RespClient> subscriber = Connect();
  std::unique_ptr<RespClient> publisher = Connect();
  EXPECT_EQ(
      CallN(*subscriber, {"PSUBSCRIBE", "news.*", "h?llo", "[ab]x", R"(lit\*)", "[^a]z"}, 5),
      (std::vector<std::string>{
          R"(["psubscribe", "news.*", (integer) 1])", R"(["psubscribe", "h?llo", (integer) 2])",
          R"(["psubscribe", "[ab]x", (integer) 3])", R"(["psubscribe", "lit\*", (integer) 4])",
          R"(["psubscribe", "[^a]z", (integer) 5])"}));
  auto publish = [&](const std::string& channel) {
    return publisher->Call({"PUBLISH", channel, "p-" + channel}).integer;
  };
  // Channels no pattern matches: nothing is sent, nothing counted.
  for (const std::string channel : {"news", "hllo", "cx", "litX", "az", "NEWS.x"}) {
    EXPECT_EQ(publish(channel), 0) << channel;
  }
  for (const std::string channel : {"news.tech", "hallo", "bx", "lit*", "zz"}) {
    EXPECT_EQ(publish(channel), 1) << channel;
  }
  EXPECT_EQ(Next(*subscriber), R"(["pmessage", "news.*", "news.tech", "p-news.tech"])");
  EXPECT_EQ(Next(*subscriber), R"(["pmessage", "h?llo", "hallo", "p-hallo"])");
  EXPECT_EQ(Next(*subscriber), R"(["pmessage", "[ab]x", "bx", "p-bx"])");
  EXPECT_EQ(Next(*subscriber), R"(["pmessage", "lit\*", "lit*", "p-lit*"])");
  EXPECT_EQ(Next(*subscriber), R"(["pmessage", "[^a]z", "zz", "p-zz"])");

  // The channel and a pattern both match: two receivers, a message then a pmessage.
  EXPECT_EQ(CallN(*subscriber, {"SUBSCRIBE", "news.tech"}, 1),
            std::vector<std::string>{R"(["subscribe", "news.tech", (integer) 6])"});
  EXPECT_EQ(publish("news.tech"), 2);
  EXPECT_EQ(Next(*subscriber), R"(["message", "news.tech", "p-news.tech"])");
  EXPECT_EQ(Next(*subscriber), R"(["pmessage", "news.*", "news.tech", "p-news.tech"])");
}

TEST_F(PubSubTest, UnsubscribeConfirmsSomeOrAllAndLeavesSubscribedMode) {
  StartServer();
  std::unique_ptr<RespClient> c = Connect();
  std::unique_ptr<RespClient> publisher = Connect();
  EXPECT_EQ(CallN(*c, {"SUBSCRIBE", "a", "b", "c", "a"}, 4),
            (std::vector<std::string>{
                R"(["subscribe", "a", (integer) 1])", R"(["subscribe", "b", (integer) 2])",
                R"(["subscribe", "c", (integer) 3])", R"(["subscribe", "a", (integer) 3])"}));
  EXPECT_EQ(CallN(*c, {"UNSUBSCRIBE", "b", "nosuch"}, 2),
            (std::vector<std::string>{R"(["unsubscribe", "b", (integer) 2])",
                                      R"(["unsubscribe", "nosuch", (integer) 2])"}));
  EXPECT_EQ(publisher->Call({"PUBLISH", "b", "x"}).integer, 0);
  EXPECT_EQ(CallN(*c, {"PSUBSCRIBE", "p*"}, 1),
            std::vector<std::string>{R"(["psubscribe", "p*", (integer) 3])"});
  // No argument: every channel (in an order Redis leaves open), patterns untouched; the count
  // goes down by one with each.
  Send(*c, {"UNSUBSCRIBE"});
  std::vector<std::string> names;
  for (std::int64_t count : {2, 1}) {
    std::optional<Reply> r = c->Read();
    ASSERT_TRUE(r && r->elements.size() == 3) << (r ? r->ToString() : "nothing");
    EXPECT_EQ(r->elements[0].str, "unsubscribe");
    EXPECT_EQ(r->elements[2].integer, count);
    names.push_back(r->elements[1].str);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(CallN(*c, {"UNSUBSCRIBE"}, 1),
            std::vector<std::string>{R"(["unsubscribe", (nil), (integer) 1])"});
  EXPECT_EQ(publisher->Call({"PUBLISH", "a", "x"}).integer, 0);
  EXPECT_EQ(publisher->Call({"PUBLISH", "pq", "still"}).integer, 1);
  EXPECT_EQ(Next(*c), R"(["pmessage", "p*", "pq", "still"])");
  EXPECT_EQ(c->Call({"GET", "k"}).ToString(),
            "(error) ERR Can't execute 'get': " + std::string(kSubscribedError));
  EXPECT_EQ(CallN(*c, {"PUNSUBSCRIBE"}, 1),
            std::vector<std::string>{R"(["punsubscribe", "p*", (integer) 0])"});
  EXPECT_EQ(CallN(*c, {"PUNSUBSCRIBE"}, 1),
            std::vector<std::string>{R"(["punsubscribe", (nil), (integer) 0])"});
  // Out of subscribed mode: ordinary replies again.
  EXPECT_EQ(c->Call({"GET", "k"}).ToString(), "(nil)");
  EXPECT_EQ(c->Call({"PING"}).ToString(), "PONG");
}

TEST_F(PubSubTest, NoMessageFollowsTheLastUnsubscribeDuringAStream) {
  StartServer();
  std::unique_ptr<RespClient> subscriber = Connect();
  std::unique_ptr<RespClient> publisher = Connect();
  CallN(*subscriber, {"SUBSCRIBE", "flood"}, 1);
  std::atomic<bool> stop{false};
  std::atomic<int> published{0};
  Threads flood;
  struct Stop {
    std::atomic<bool>& flag;
    ~Stop() { flag.store(true); }
  } stop_first{stop};  // Declared after `flood`: it stops the thread before that joins it.
  flood.all.emplace_back([&] {
    while (!stop.load()) {
      if (publisher->Call({"PUBLISH", "flood", std::string(100, 'x')}).type !=
          Reply::Type::kInteger) {
        return;
      }
      ++published;
    }
  });
  ASSERT_TRUE(Eventually([&] { return published.load() > 200; }));
  // Heard while the server writes it messages; every frame before the confirmation is one.
  Send(*subscriber, {"UNSUBSCRIBE", "flood"});
  int messages = 0;
  std::string frame;
  while ((frame = Next(*subscriber)).starts_with(R"(["message", "flood", )")) ++messages;
  EXPECT_EQ(frame, R"(["unsubscribe", "flood", (integer) 0])") << "after " << messages;
  // Still streaming, but nothing more for this client: the next frame is PING's plain reply.
  const int before = published.load();
  ASSERT_TRUE(Eventually([&] { return published.load() > before + 200; }));
  EXPECT_EQ(subscriber->Call({"PING"}).ToString(), "PONG");
}

TEST_F(PubSubTest, Resp2SubscribedModeAllowsOnlySubscriptionCommandsPingQuitReset) {
  StartServer();
  std::unique_ptr<RespClient> c = Connect();
  CallN(*c, {"SUBSCRIBE", "ch"}, 1);
  const std::string refused = "(error) ERR Can't execute '";
  EXPECT_EQ(c->Call({"GET", "x"}).ToString(), refused + "get': " + std::string(kSubscribedError));
  EXPECT_EQ(c->Call({"pubsub", "NumSub", "ch"}).ToString(),
            refused + "pubsub|numsub': " + std::string(kSubscribedError));
  EXPECT_EQ(c->Call({"CLIENT", "LIST"}).ToString(),
            refused + "client|list': " + std::string(kSubscribedError));
  EXPECT_EQ(c->Call({"MULTI"}).ToString(), refused + "multi': " + std::string(kSubscribedError));
  EXPECT_EQ(c->Call({"HELLO", "3"}).ToString(),
            refused + "hello': " + std::string(kSubscribedError));
  // Unknown commands and wrong arity are reported as such first, as Redis does.
  EXPECT_EQ(c->Call({"NOSUCH"}).ToString(),
            "(error) ERR unknown command 'NOSUCH', with args beginning with: ");
  EXPECT_EQ(c->Call({"PUBLISH", "x"}).ToString(),
            "(error) ERR wrong number of arguments for 'publish' command");
  // PING answers in a message's shape.
  EXPECT_EQ(c->Call({"PING"}).ToString(), R"(["pong", ""])");
  EXPECT_EQ(c->Call({"PING", "hi"}).ToString(), R"(["pong", "hi"])");

  // RESET leaves every subscription and subscribed mode.
  CallN(*c, {"PSUBSCRIBE", "p*"}, 1);
  EXPECT_EQ(c->Call({"RESET"}).ToString(), "RESET");
  EXPECT_EQ(Do({"PUBSUB", "NUMSUB", "ch"}), R"(["ch", (integer) 0])");
  EXPECT_EQ(Do({"PUBSUB", "NUMPAT"}), "(integer) 0");
  EXPECT_EQ(c->Call({"GET", "x"}).ToString(), "(nil)");

  // QUIT is allowed, and closes.
  CallN(*c, {"SUBSCRIBE", "ch"}, 1);
  EXPECT_EQ(c->Call({"QUIT"}).ToString(), "OK");
  EXPECT_TRUE(c->WaitClosed());
  EXPECT_TRUE(Eventually([&] {
    return Do({"PUBSUB", "NUMSUB", "ch"}) == R"(["ch", (integer) 0])";
  }));
}

TEST_F(PubSubTest, Resp3PushesInterleaveWithOrdinaryReplies) {
  StartServer();
  std::unique_ptr<RespClient> c = Connect();
  std::unique_ptr<RespClient> publisher = Connect();
  ASSERT_EQ(c->Call({"HELLO", "3"}).type, Reply::Type::kMap);
  Reply confirmation = c->Call({"SUBSCRIBE", "ch"});
  EXPECT_EQ(confirmation.type, Reply::Type::kPush);
  EXPECT_EQ(confirmation.ToString(), R"(["subscribe", "ch", (integer) 1])");
  // Anything runs: RESP3 tells pushes from replies.
  EXPECT_EQ(c->Call({"SET", "k", "v"}).ToString(), "OK");
  EXPECT_EQ(c->Call({"PING"}).ToString(), "PONG");
  EXPECT_EQ(c->Call({"PUBSUB", "NUMSUB", "ch"}).ToString(), R"(["ch", (integer) 1])");

  // A message published before the GET arrives as a push, before or after GET's reply.
  ASSERT_EQ(publisher->Call({"PUBLISH", "ch", "one"}).integer, 1);
  Send(*c, {"GET", "k"});
  std::vector<Reply> frames;
  for (int i = 0; i < 2; ++i) {
    std::optional<Reply> r = c->Read();
    ASSERT_TRUE(r.has_value());
    frames.push_back(std::move(*r));
  }
  std::sort(frames.begin(), frames.end(), [](const Reply& a, const Reply& b) {
    return a.type == Reply::Type::kPush && b.type != a.type;
  });
  EXPECT_EQ(frames[0].type, Reply::Type::kPush);
  EXPECT_EQ(frames[0].ToString(), R"(["message", "ch", "one"])");
  EXPECT_EQ(frames[1].type, Reply::Type::kBulk);
  EXPECT_EQ(frames[1].str, "v");

  // Its own PUBLISH reaches it too; a pattern's message is a push of four.
  EXPECT_EQ(c->Call({"PSUBSCRIBE", "c*"}).ToString(), R"(["psubscribe", "c*", (integer) 2])");
  Send(*c, {"PUBLISH", "ch", "self"});
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) got.push_back(Next(*c));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"(integer) 2", R"(["message", "ch", "self"])",
                                           R"(["pmessage", "c*", "ch", "self"])"}));
  Reply none = c->Call({"UNSUBSCRIBE", "x"});
  EXPECT_EQ(none.type, Reply::Type::kPush);
  EXPECT_EQ(none.ToString(), R"(["unsubscribe", "x", (integer) 2])");
  Reply all = c->Call({"PUNSUBSCRIBE"});
  EXPECT_EQ(all.ToString(), R"(["punsubscribe", "c*", (integer) 1])");
  EXPECT_EQ(c->Call({"UNSUBSCRIBE"}).ToString(), R"(["unsubscribe", "ch", (integer) 0])");
  Reply nothing = c->Call({"UNSUBSCRIBE"});
  ASSERT_EQ(nothing.elements.size(), 3u);
  EXPECT_EQ(nothing.elements[1].type, Reply::Type::kNull);  // RESP3 null, not $-1.
}

TEST_F(PubSubTest, IntrospectionCountsChannelsPatternsAndSubscribers) {
  StartServer();
  std::unique_ptr<RespClient> one = Connect(), two = Connect();
  const std::int64_t id_two = ClientId(*two);
  CallN(*one, {"SUBSCRIBE", "news", "weather"}, 2);
  CallN(*one, {"PSUBSCRIBE", "n*"}, 1);
  CallN(*two, {"SUBSCRIBE", "news"}, 1);
  CallN(*two, {"PSUBSCRIBE", "n*", "w*"}, 2);

  Reply channels = Call({"PUBSUB", "CHANNELS"});
  std::vector<std::string> names;
  for (const Reply& r : channels.elements) names.push_back(r.str);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"news", "weather"}));
  EXPECT_EQ(Do({"PUBSUB", "CHANNELS", "w*"}), R"(["weather"])");
  EXPECT_EQ(Do({"PUBSUB", "CHANNELS", "x*"}), "[]");
  EXPECT_EQ(
      Do({"PUBSUB", "NUMSUB", "news", "weather", "nosuch", "news"}),
      R"(["news", (integer) 2, "weather", (integer) 1, "nosuch", (integer) 0, "news", (integer) 2])");
  EXPECT_EQ(Do({"PUBSUB", "NUMSUB"}), "[]");
  EXPECT_EQ(Do({"PUBSUB", "NUMPAT"}), "(integer) 2") << "distinct patterns";
  // Every subscription counts: two of the channel, three patterns matching it.
  EXPECT_EQ(Do({"PUBLISH", "news", "x"}), "(integer) 4");

  const std::string stats = Call({"INFO", "stats"}).str;
  EXPECT_NE(stats.find("pubsub_channels:2\r\n"), std::string::npos) << stats;
  EXPECT_NE(stats.find("pubsub_patterns:2\r\n"), std::string::npos) << stats;

  const std::string list = ClientList({"ID", std::to_string(id_two)});
  EXPECT_NE(list.find(" flags=P "), std::string::npos) << list;
  EXPECT_NE(list.find(" sub=1 psub=2 ssub=0 "), std::string::npos) << list;
  // TYPE pubsub lists exactly the two subscribers; TYPE normal the rest (this client).
  const std::string pubsub = ClientList({"TYPE", "pubsub"});
  EXPECT_EQ(std::count(pubsub.begin(), pubsub.end(), '\n'), 2) << pubsub;
  const std::string normal = ClientList({"TYPE", "normal"});
  EXPECT_EQ(std::count(normal.begin(), normal.end(), '\n'), 1) << normal;
  EXPECT_NE(normal.find(" flags=N "), std::string::npos) << normal;
  EXPECT_EQ(Do({"CLIENT", "LIST", "TYPE", "bogus"}), "(error) ERR Unknown client type 'bogus'");

  // A subscriber that goes away takes its subscriptions with it.
  two.reset();
  EXPECT_TRUE(Eventually([&] { return Do({"PUBSUB", "NUMPAT"}) == "(integer) 1"; }));
  EXPECT_EQ(Do({"PUBSUB", "NUMSUB", "news"}), R"(["news", (integer) 1])");
  // CLIENT KILL TYPE pubsub takes the other.
  EXPECT_EQ(Do({"CLIENT", "KILL", "TYPE", "pubsub"}), "(integer) 1");
  EXPECT_TRUE(one->WaitClosed());
  EXPECT_TRUE(Eventually([&] { return Do({"PUBSUB", "CHANNELS"}) == "[]"; }));
  EXPECT_EQ(Do({"PUBSUB", "NUMPAT"}), "(integer) 0");
}

TEST_F(PubSubTest, PublishInsideMultiAndScriptsSendsWhatCommits) {
  StartServer();
  std::unique_ptr<RespClient> subscriber = Connect();
  CallN(*subscriber, {"SUBSCRIBE", "ch"}, 1);

  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"PUBLISH", "ch", "in-exec"}), "QUEUED");
  ASSERT_EQ(Do({"SET", "k", "1"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[(integer) 1, OK]");
  EXPECT_EQ(Next(*subscriber), R"(["message", "ch", "in-exec"])");

  // DISCARD and a WATCH that aborts EXEC send nothing.
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"PUBLISH", "ch", "discarded"}), "QUEUED");
  ASSERT_EQ(Do({"DISCARD"}), "OK");
  ASSERT_EQ(Do({"WATCH", "k"}), "OK");
  ASSERT_EQ(Connect()->Call({"SET", "k", "2"}).ToString(), "OK");
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"PUBLISH", "ch", "aborted"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "(nil)");

  // A script's message goes out; one of a script that fails does not (its writes are rolled
  // back, and so are its messages). The messages keep the publisher's order.
  EXPECT_EQ(Do({"EVAL", "return redis.call('PUBLISH', KEYS[1], ARGV[1])", "1", "ch", "scripted"}),
            "(integer) 1");
  const std::string failing =
      Do({"EVAL", "redis.call('PUBLISH', 'ch', 'failed'); error('no')", "0"});
  EXPECT_TRUE(failing.starts_with("(error) ")) << failing;
  EXPECT_EQ(Do({"PUBLISH", "ch", "after"}), "(integer) 1");
  EXPECT_EQ(Next(*subscriber), R"(["message", "ch", "scripted"])");
  EXPECT_EQ(Next(*subscriber), R"(["message", "ch", "after"])");

  // A pipeline: a script's (batched) message, then a plain one, in that order.
  std::unique_ptr<RespClient> pipelined = Connect();
  ASSERT_TRUE(pipelined->Send(
      RespClient::Encode({"EVAL", "return redis.call('PUBLISH', 'ch', 'p1')", "0"}) +
      RespClient::Encode({"PUBLISH", "ch", "p2"})));
  EXPECT_EQ(Next(*pipelined), "(integer) 1");
  EXPECT_EQ(Next(*pipelined), "(integer) 1");
  EXPECT_EQ(Next(*subscriber), R"(["message", "ch", "p1"])");
  EXPECT_EQ(Next(*subscriber), R"(["message", "ch", "p2"])");

  // Read-only scripts may not publish; no script may subscribe.
  const std::string read_only = Do({"EVAL_RO", "return redis.call('PUBLISH', 'ch', 'x')", "0"});
  EXPECT_TRUE(
      read_only.starts_with("(error) ERR Write commands are not allowed from read-only scripts."))
      << read_only;
  const std::string subscribe = Do({"EVAL", "return redis.call('SUBSCRIBE', 'ch')", "0"});
  EXPECT_TRUE(subscribe.starts_with("(error) ERR This Redis command is not allowed from script"))
      << subscribe;
  EXPECT_EQ(Do({"EVAL", "return redis.call('PUBSUB', 'NUMSUB', 'ch')", "0"}),
            R"(["ch", (integer) 1])");

  // SUBSCRIBE inside MULTI subscribes at EXEC, its confirmation in EXEC's array.
  std::unique_ptr<RespClient> late = Connect();
  ASSERT_EQ(late->Call({"MULTI"}).ToString(), "OK");
  ASSERT_EQ(late->Call({"SUBSCRIBE", "ch2"}).ToString(), "QUEUED");
  EXPECT_EQ(late->Call({"EXEC"}).ToString(), R"([["subscribe", "ch2", (integer) 1]])");
  EXPECT_EQ(Do({"PUBLISH", "ch2", "x"}), "(integer) 1");
  EXPECT_EQ(Next(*late), R"(["message", "ch2", "x"])");
}

TEST_F(PubSubTest, ASubscriberThatReadsStaysWithinATinyLimit) {
  // Far more than the limit goes through, but only a message or a few are ever unsent.
  StartServer({"--client-output-buffer-limit", "pubsub", "64kb", "32kb", "0"});
  std::unique_ptr<RespClient> subscriber = Connect();
  std::unique_ptr<RespClient> publisher = Connect();
  CallN(*subscriber, {"SUBSCRIBE", "ch"}, 1);
  const std::string payload(4000, 'p');
  for (int i = 0; i < 500; ++i) {
    ASSERT_EQ(publisher->Call({"PUBLISH", "ch", payload}).integer, 1) << i;
    ASSERT_EQ(Next(*subscriber), R"(["message", "ch", ")" + payload + R"("])") << i;
  }
  EXPECT_EQ(subscriber->Call({"PING"}).ToString(), R"(["pong", ""])");
}

TEST_F(PubSubTest, AStalledSubscriberIsDisconnectedAtTheHardLimit) {
  StartServer({"--client-output-buffer-limit", "pubsub", "256kb", "0", "0"});
  std::unique_ptr<RespClient> publisher = Connect();
  std::unique_ptr<RespClient> other = Connect();  // Reads: unaffected.
  CallN(*other, {"SUBSCRIBE", "other"}, 1);
  ExpectStalledSubscriberDisconnected(*publisher);
  // CLIENT LIST lists the one subscriber left.
  const std::string subscribers = ClientList({"TYPE", "pubsub"});
  EXPECT_EQ(std::count(subscribers.begin(), subscribers.end(), '\n'), 1) << subscribers;
  // The publisher goes on, and the subscriber that reads gets its messages.
  EXPECT_EQ(publisher->Call({"PUBLISH", "other", "still here"}).integer, 1);
  EXPECT_EQ(Next(*other), R"(["message", "other", "still here"])");
}

TEST_F(PubSubTest, AStalledSubscriberIsDisconnectedOnceOverTheSoftLimitTooLong) {
  // Soft limit only, for 0 s: the first message over it starts the clock, a later one over it
  // disconnects.
  StartServer({"--client-output-buffer-limit", "pubsub", "0", "128kb", "0"});
  std::unique_ptr<RespClient> publisher = Connect();
  ExpectStalledSubscriberDisconnected(*publisher);
  EXPECT_EQ(Do({"PUBSUB", "NUMSUB", "stalled"}), R"(["stalled", (integer) 0])");
}

TEST_F(PubSubTest, TheLimitIsAConfigParameter) {
  StartServer({"--client-output-buffer-limit", "pubsub", "1mb", "512kb", "10"});
  EXPECT_EQ(
      Do({"CONFIG", "GET", "client-output-buffer-limit"}),
      R"(["client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 10"])");
  EXPECT_EQ(Do({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 64kb 0 0"}), "OK");
  EXPECT_EQ(
      Do({"CONFIG", "GET", "client-output-buffer-limit"}),
      R"(["client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 65536 0 0"])");
  EXPECT_EQ(Do({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb"}),
            "(error) ERR CONFIG SET failed (possibly related to argument "
            "'client-output-buffer-limit') - Wrong number of arguments in buffer limit "
            "configuration.");
  // The new limit applies at once.
  std::unique_ptr<RespClient> publisher = Connect();
  ExpectStalledSubscriberDisconnected(*publisher);
}

}  // namespace
}  // namespace cairn::test
