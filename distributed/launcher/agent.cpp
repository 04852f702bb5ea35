#include "agent.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <ember/core/error.h>
#include <ember/distributed/tcp_store.h>

#include "rendezvous.h"
#include "worker_group.h"

namespace ember::distributed::launcher {

// Note [ember-run agent]: one agent per node, single-threaded (the TCPStore
// server, when this agent serves the rendezvous, has its own thread). Round r:
//   1. rendezvous (Note [Rendezvous rounds]); start the node's workers with
//      RESTART_COUNT = the round's restart count (below) and logs in
//      <log-dir>/round_<r>/rank_<RANK>.log;
//   2. every --monitor-interval: reap workers; a failed one is written to the
//      round's "failed" key (compare_set: the first failure of the round wins,
//      on any node, with its exit and the tail of its log, so that every agent
//      can print it); "failed" set by anyone stops this node's workers
//      (SIGTERM, SIGKILL after --stop-timeout); a node whose workers all
//      succeeded counts itself in "succeeded" and keeps watching "failed" until
//      every node succeeded (a late failure elsewhere restarts it too: the
//      group restarts as a whole); a node waiting to join (Note [Scale-up])
//      stops the workers too;
//   3. after a failure the next round's restart count is one higher, after a
//      scale-up it stays (the round's "restart_count" key, compare_set by the
//      agents leaving round r: the first proposal wins, so that all agree);
//      round r + 1 follows while that count is within max_restarts (the first
//      agent's budget, kept in the store), else the final summary and exit 1.
// A SIGINT / SIGTERM to the agent is forwarded to the workers and written to
// the round's "shutdown" key, which stops the other nodes without a restart.
// Before exiting, each agent counts itself in the round's "exited"; the agent
// serving the store waits (up to 30 s) for the others, so that it does not take
// the store away under them. A failed rendezvous ends the same way: every
// node of the round learns the failure from the store (Note [Failed
// rendezvous]) and counts itself in "rdzv_left", which the serving agent
// waits for.

namespace {

std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) { g_signal.store(sig); }

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: sleeps end early
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

void say(const std::string& text) {
  std::fprintf(stderr, "ember-run: %s\n", text.c_str());
  std::fflush(stderr);
}

std::pair<std::string, uint16_t> split_endpoint(const std::string& endpoint) {
  const auto colon = endpoint.rfind(':');
  std::string host = endpoint.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = endpoint.substr(colon + 1);
  char* end = nullptr;
  const long port = std::strtol(port_text.c_str(), &end, 10);
  EMBER_CHECK(!host.empty() && !port_text.empty() && *end == '\0' && port > 0 && port < 65536,
              "ember-run: --rdzv-endpoint wants host:port with a port in 1..65535, got '", endpoint, "'");
  return {host, static_cast<uint16_t>(port)};
}

// The local address of a connection to host:port: the address the other
// nodes reach this one at, when the endpoint is on another machine.
std::string local_address_towards(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;  // connect() on UDP sends nothing
  addrinfo* info = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &info) != 0) return "127.0.0.1";
  std::string result = "127.0.0.1";
  const int fd = ::socket(info->ai_family, SOCK_DGRAM, 0);
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (fd >= 0 && ::connect(fd, info->ai_addr, info->ai_addrlen) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* where = local.ss_family == AF_INET6
                            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    if (::inet_ntop(local.ss_family, where, text, sizeof text)) result = text;
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(info);
  return result;
}

std::string tail_of(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string text;
  for (const std::string& l : last) text += "    " + l + "\n";
  return text.empty() ? "    (empty)\n" : text;
}

std::string make_log_dir(const LaunchOptions& o) {
  if (!o.log_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.log_dir, ec);
    EMBER_CHECK(!ec, "ember-run: cannot create --log-dir ", o.log_dir, ": ", ec.message());
    return o.log_dir;
  }
  std::string pattern = (std::filesystem::temp_directory_path() / ("ember-run-" + o.rdzv_id + "-XXXXXX")).string();
  EMBER_CHECK(::mkdtemp(pattern.data()) != nullptr, "ember-run: cannot create a log folder ", pattern, ": ",
              std::strerror(errno));
  return pattern;
}

enum class Outcome { kSucceeded, kFailed, kInterrupted, kScaleUp };

class Agent {
 public:
  explicit Agent(const LaunchOptions& o) : o_(o) {}

  int run() {
    connect_store();
    log_dir_ = make_log_dir(o_);
    // The first agent's --max-restarts is the job's budget.
    const std::string budget =
        store_->compare_set(job_key(o_.rdzv_id, "max_restarts"), "", std::to_string(o_.max_restarts));
    max_restarts_ = std::stoi(budget);
    if (max_restarts_ != o_.max_restarts) {
      say("the job's restart budget is " + budget + " (set by the first node), not --max-restarts " +
          std::to_string(o_.max_restarts));
    }
    int previous_rank = -1;  // this node's group rank in the round before
    for (int round = 0;;) {
      RendezvousResult r;
      try {
        r = rendezvous(*store_, o_, round, previous_rank, local_addr_, g_signal);
      } catch (const std::exception& e) {
        std::string what = e.what();
        if (what.rfind("ember-run:", 0) != 0) {
          // The store itself failed: say which, and that its agent may be gone.
          what = "ember-run: rendezvous '" + o_.rdzv_id + "' round " + std::to_string(round) +
                 ": the rendezvous store failed (did the agent serving it exit?): " + what;
        }
        say(what.substr(std::string("ember-run: ").size()));
        leave_rendezvous(round);
        return g_signal.load() ? 128 + g_signal.load() : 1;
      }
      // Round 0 runs with RESTART_COUNT 0; a later round with what the agents
      // leaving the round before it agreed on.
      const int restarts = round == 0 ? 0 : std::stoi(store_->get(round_key(o_.rdzv_id, round, "restart_count")));
      const Outcome outcome = run_round(r, restarts);
      if (outcome == Outcome::kSucceeded) {
        say("round " + std::to_string(round) + ": every worker succeeded");
        store_->compare_set(job_key(o_.rdzv_id, "finished"), "", std::to_string(round));
        leave(r);
        return 0;
      }
      if (outcome == Outcome::kInterrupted) {
        leave(r);
        return 128 + (g_signal.load() ? g_signal.load() : SIGTERM);
      }
      // A failure costs a restart, a scale-up does not; the first agent to
      // propose the next round's count decides it for all (they may have seen
      // the two in different orders).
      const int proposed = outcome == Outcome::kFailed ? restarts + 1 : restarts;
      const int next =
          std::stoi(store_->compare_set(round_key(o_.rdzv_id, round + 1, "restart_count"), "", std::to_string(proposed)));
      if (next > max_restarts_) {
        const std::string failure = store_->get(round_key(o_.rdzv_id, round, "failed"));
        std::string summary = "the job failed after " + std::to_string(restarts) + " restart" +
                              (restarts == 1 ? "" : "s") + " (budget " + std::to_string(max_restarts_) +
                              ", shared by all nodes)\n";
        summary += "first failure of round " + std::to_string(round) + ": " + failure;
        say(summary);
        leave(r);
        return 1;
      }
      if (next > restarts) {
        const std::string failure = store_->get(round_key(o_.rdzv_id, round, "failed"));
        say("round " + std::to_string(round) + " failed: " + first_line(failure) + "; restarting the group (restart " +
            std::to_string(next) + " of " + std::to_string(max_restarts_) + ", shared by all nodes)");
      } else {
        say("round " + std::to_string(round) + ": a node is waiting to join; restarting the group with it (not " +
            "counted against the restart budget)");
      }
      previous_rank = r.group_rank;
      ++round;
    }
  }

 private:
  static std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

  void connect_store() {
    std::string host = "127.0.0.1";
    uint16_t port = 0;
    if (o_.rdzv_endpoint.empty()) {
      server_ = std::make_unique<TCPStoreServer>(host, 0);
      port = server_->port();
    } else {
      std::tie(host, port) = split_endpoint(o_.rdzv_endpoint);
      // Serve the store when this node can listen at the endpoint (it is this
      // machine's address and nobody serves it yet); else be a client.
      try {
        server_ = std::make_unique<TCPStoreServer>(host, port);
      } catch (const ember::Error&) {
        server_.reset();
      }
    }
    const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(o_.join_timeout_s * 1000));
    store_ = std::make_unique<TCPStore>(host, TCPStoreOptions{.port = port, .timeout = timeout});
    local_addr_ = !o_.local_addr.empty()                               ? o_.local_addr
                  : o_.rdzv_endpoint.empty()                           ? std::string("127.0.0.1")
                                                                       : local_address_towards(host, port);
  }

  Outcome run_round(const RendezvousResult& r, int restarts) {
    const auto key = [&](const std::string& name) { return round_key(o_.rdzv_id, r.round, name); };
    const std::string round_dir = log_dir_ + "/round_" + std::to_string(r.round);
    std::filesystem::create_directories(round_dir);
    std::vector<WorkerSpec> specs;
    for (int local = 0; local < o_.nproc_per_node; ++local) {
      const int rank = r.rank_offset + local;
      WorkerSpec spec;
      spec.env = {{"RANK", std::to_string(rank)},
                  {"LOCAL_RANK", std::to_string(local)},
                  {"WORLD_SIZE", std::to_string(r.world_size)},
                  {"LOCAL_WORLD_SIZE", std::to_string(o_.nproc_per_node)},
                  {"GROUP_RANK", std::to_string(r.group_rank)},
                  {"GROUP_WORLD_SIZE", std::to_string(r.group_world_size)},
                  {"MASTER_ADDR", r.master_addr},
                  {"MASTER_PORT", std::to_string(r.master_port)},
                  {"RESTART_COUNT", std::to_string(restarts)},
                  {"MAX_RESTARTS", std::to_string(max_restarts_)},
                  {"TORCHELASTIC_RUN_ID", o_.rdzv_id}};
      spec.log_path = round_dir + "/rank_" + std::to_string(rank) + ".log";
      specs.push_back(spec);
    }
    say("round " + std::to_string(r.round) + ": node " + std::to_string(r.group_rank) + " of " +
        std::to_string(r.group_world_size) + " (" + local_addr_ + "), ranks " + std::to_string(r.rank_offset) + ".." +
        std::to_string(r.rank_offset + o_.nproc_per_node - 1) + " of " + std::to_string(r.world_size) +
        ", master " + r.master_addr + ":" + std::to_string(r.master_port) + ", logs in " + round_dir);

    const auto grace = std::chrono::milliseconds(static_cast<int64_t>(o_.stop_timeout_s * 1000));
    const auto interval = std::chrono::microseconds(static_cast<int64_t>(o_.monitor_interval_s * 1e6));
    WorkerGroup workers(o_.program, specs);
    bool counted_success = false;
    for (;;) {
      if (const int sig = g_signal.load()) {
        say("got signal " + std::to_string(sig) + ": forwarding it to the workers and stopping them");
        workers.signal_all(sig);
        store_->compare_set(key("shutdown"), "", "node " + std::to_string(r.group_rank) + " got signal " +
                                                     std::to_string(sig));
        workers.stop(grace);
        return Outcome::kInterrupted;
      }
      if (auto failure = workers.poll_failure()) {
        const int rank = r.rank_offset + failure->local_rank;
        const std::string& log = specs[failure->local_rank].log_path;
        const std::string text = "rank " + std::to_string(rank) + " (local rank " +
                                 std::to_string(failure->local_rank) + " on node " + std::to_string(r.group_rank) +
                                 ", " + local_addr_ + ") " + failure->describe() + "\n  log: " + log +
                                 "\n  last lines:\n" + tail_of(log, o_.tail_lines);
        store_->compare_set(key("failed"), "", text);
      }
      if (store_->check({key("failed")})) {
        workers.stop(grace);
        return Outcome::kFailed;
      }
      if (store_->check({key("shutdown")})) {
        say("stopping: " + store_->get(key("shutdown")));
        workers.stop(grace);
        return Outcome::kInterrupted;
      }
      if (nodes_waiting(*store_, o_, r)) {
        workers.stop(grace);
        return Outcome::kScaleUp;
      }
      if (workers.all_succeeded()) {
        if (!counted_success) {
          store_->add(key("succeeded"), 1);
          counted_success = true;
        }
        if (store_->add(key("succeeded"), 0) >= r.group_world_size) return Outcome::kSucceeded;
      }
      std::this_thread::sleep_for(interval);  // a signal ends it early
    }
  }

  // After a failed rendezvous of round: counts this agent out of it; the agent
  // serving the store waits for every node that joined the round to learn the
  // outcome (Note [Failed rendezvous] in rendezvous.cpp) before taking the
  // store down, so that none of them gets a bare store error instead.
  void leave_rendezvous(int round) {
    try {
      store_->add(round_key(o_.rdzv_id, round, "rdzv_left"), 1);
      if (!server_) return;
      wait_for_others(round_key(o_.rdzv_id, round, "rdzv_left"), [&] {
        return store_->add(round_key(o_.rdzv_id, round, "joined"), 0);
      });
    } catch (const std::exception&) {
      // The store is gone already: nobody is left to tell.
    }
  }

  // Waits (the agent serving the store) until counter reaches expected(), for
  // up to 30 s; a signal that ended the round does not end this wait (the
  // other agents still need the store), a second one does.
  template <class Expected>
  void wait_for_others(const std::string& counter, Expected expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    const int signal_before = g_signal.exchange(0);
    while (store_->add(counter, 0) < expected() && std::chrono::steady_clock::now() < deadline &&
           g_signal.load() == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (signal_before) g_signal.store(signal_before);
  }

  // Counts this agent out of round r; the agent serving the store waits for the
  // others before taking the store down.
  void leave(const RendezvousResult& r) {
    const std::string key = round_key(o_.rdzv_id, r.round, "exited");
    try {
      store_->add(key, 1);
      if (!server_) return;
      wait_for_others(key, [&] { return static_cast<int64_t>(r.group_world_size); });
    } catch (const std::exception& e) {
      say(std::string("while leaving: ") + e.what());
    }
  }

  const LaunchOptions& o_;
  std::unique_ptr<TCPStoreServer> server_;
  std::unique_ptr<TCPStore> store_;
  std::string local_addr_;
  std::string log_dir_;
  int max_restarts_ = 0;
};

}  // namespace

int run_agent(const LaunchOptions& options) {
  install_signal_handlers();
  Agent agent(options);
  return agent.run();
}

}  // namespace ember::distributed::launcher
