// cairn-server: a Redis-protocol endpoint over a Cairn store.
//
// Started like redis-server: `cairn-server [config-file] [--name value ...]`. Once the store
// is open and every listener is bound it prints one line on stdout, which scripts and tests
// wait for (documented in server/README.md):
//
//   cairn-server ready port=<port>
//
// SIGTERM and SIGINT (and SHUTDOWN) stop it cleanly: no new connections, running commands
// finish, the store is closed and flushed.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#include "cairn/store.h"
#include "commands/all_commands.h"
#include "config/server_config.h"
#include "execution/command_table.h"
#include "execution/server_state.h"
#include "net/asio.h"
#include "net/descriptor_budget.h"
#include "net/loopback.h"
#include "net/server.h"
#include "server_version.h"

namespace {

using cairn::server::ServerConfig;

int Fail(const std::string& message) {
  std::cerr << "cairn-server: " << message << "\n";
  return 1;
}

int Serve(const ServerConfig& config) {
  if (config.protected_mode && config.requirepass.empty() &&
      !cairn::server::BindsLoopbackOnly(config.bind)) {
    return Fail("refusing to listen on '" + config.bind +
                "' without a password: set --requirepass, or --protected-mode no to allow it");
  }
  cairn::Result<cairn::server::DescriptorBudget> descriptors =
      cairn::server::ShareDescriptors(config.maxclients);
  if (!descriptors.ok()) return Fail(std::string(descriptors.status().message()));
  if (!descriptors->note.empty()) std::cerr << "cairn-server: " << descriptors->note << "\n";
  ServerConfig adjusted = config;
  adjusted.maxclients = descriptors->maxclients;

  std::error_code fs_error;
  const std::filesystem::path dir = std::filesystem::absolute(config.dir, fs_error);
  cairn::Options options;
  options.data_dir = fs_error ? config.dir : dir.string();
  // Under `always` the server syncs before it replies (ServerState::sync_before_reply), so
  // the store itself need not sync every commit.
  const bool sync_before_reply = config.durability == cairn::Durability::kAlways;
  options.durability = sync_before_reply ? cairn::Durability::kNone : config.durability;
  options.row_cache_bytes = config.row_cache_bytes;
  options.max_open_files = descriptors->store_table_files;
  // One keyspace executor runs every command, whatever the io thread count (net/server.h), so
  // its transactions need no row locks: the keyspace is taken in turns, and a parked blocking
  // command (BLPOP …) waits for the executor's turn to end.
  const int io_threads = cairn::server::IoThreads(config.threads);
  options.serialize_keyspace = true;
  // The keyspace turn passes between the io threads (net/keyspace_executor.h), so the write
  // batch's transaction may be continued on another thread than the one that began it.
  options.caller_serializes_keyspace = true;
  std::shared_ptr<cairn::Clock> clock = cairn::DefaultClock();
  options.clock = clock;
  options.min_free_disk_bytes = config.min_free_disk_bytes;
  // Logged once per change, not per refused write: a full disk must not fill the log too.
  options.on_health_change = [](const cairn::StoreHealth& health) {
    if (health.writable()) {
      std::cerr << "cairn-server: the store takes writes again\n";
    } else {
      std::cerr << "cairn-server: writes are refused (-MISCONF) until the cause is gone: "
                << health.write_status.message() << "\n";
    }
  };
  std::shared_ptr<cairn::FaultInjection> faults;
  if (config.fault_injection) {
    faults = cairn::FaultInjection::Create();
    options.fault_injection = faults;
    std::cerr << "cairn-server: fault-injection is on: any client may fail the disk (DEBUG "
                 "FAULT); for tests only\n";
  }
  cairn::Result<std::unique_ptr<cairn::Store>> store = cairn::Store::Open(options);
  if (!store.ok()) return Fail("cannot open the store: " + store.status().ToString());

  const cairn::server::CommandTable table = cairn::server::BuildCommandTable();
  cairn::server::ServerState state(**store, table, adjusted, clock);
  // CONFIG SET maxclients may not go past what the descriptors allow.
  state.set_maxclients_cap(static_cast<int>(
      std::min<long long>(descriptors->open_file_limit - cairn::server::kServerDescriptors -
                              cairn::server::kStoreOtherFiles - descriptors->store_table_files,
                          std::numeric_limits<int>::max())));
  state.set_sync_before_reply(sync_before_reply);
  state.set_faults(faults);
  cairn::server::NetServer net(state, io_threads);
  cairn::Result<int> port = net.Listen(config.bind, config.port);
  if (!port.ok()) return Fail(port.status().ToString());
  state.tcp_port = *port;
  state.request_shutdown = [&net] { net.Stop(); };

  boost::asio::io_context signal_context(1);
  boost::asio::signal_set signals(signal_context, SIGTERM, SIGINT);
  signals.async_wait([&net](const boost::system::error_code& ec, int) {
    if (!ec) net.Stop();
  });
  std::thread signal_thread([&signal_context] { signal_context.run(); });

  std::cerr << "cairn-server " << cairn::server::kCairnVersion << " (Redis "
            << cairn::server::kRedisVersion << " protocol): listening on " << config.bind
            << " port " << *port << ", data in " << options.data_dir << ", durability "
            << cairn::DurabilityName(config.durability) << "\n";
  std::cout << "cairn-server ready port=" << *port << std::endl;

  net.Run();
  signal_context.stop();
  signal_thread.join();
  const cairn::Status closed = (*store)->Close();
  if (!closed.ok()) return Fail("closing the store: " + closed.ToString());
  std::cerr << "cairn-server: stopped, store closed\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // A client that vanishes must not kill the server.
  const std::vector<std::string> args(argv, argv + argc);
  cairn::Result<cairn::server::Launch> launch = cairn::server::ParseLaunch(args);
  if (!launch.ok()) return Fail(std::string(launch.status().message()));
  switch (launch->action) {
    case cairn::server::LaunchAction::kHelp:
      std::cout << cairn::server::HelpText();
      return 0;
    case cairn::server::LaunchAction::kVersion:
      std::cout << cairn::server::VersionText() << "\n";
      return 0;
    case cairn::server::LaunchAction::kRun:
      break;
  }
  return Serve(launch->config);
}
