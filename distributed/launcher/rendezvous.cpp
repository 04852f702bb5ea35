#include "rendezvous.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <ember/core/error.h>

namespace ember::distributed::launcher {

// Note [Rendezvous rounds]: as torchelastic's c10d rendezvous, nodes join a
// round, and the round closes when max_nodes joined, or last_call_timeout
// after min_nodes had joined (so that stragglers of a MIN:MAX job still get in).
// Every attempt of the job is a new round: after a failure, every agent stops
// its workers and joins round r + 1, and RESTART_COUNT is r. The restart budget
// therefore is one number for all nodes ("round <= max_restarts"), not one per
// agent as in PyTorch (pytorch#108158), where an agent restarting alone can burn
// through everybody's restarts or, worse, each node gets its own R.
//
// Keys of round r: "joined" (a counter; add() hands out the join index),
// "node/<index>" ("<requested rank> <addr> <nproc> <previous group rank>"),
// "closed" (the number of
// nodes, set once by compare_set: whoever first sees the round full or the
// last call over closes it) and "master" (addr:port, set by group rank 0).
// A node whose join index is not below the closed count came too late.
//
// Note [Failed rendezvous]: a round that cannot close (too few nodes within
// the join timeout, or a node interrupted by a signal) is failed for
// everybody: the node that gives up writes "failure" ("<its address>\n<the
// reason>") and then closes the round with compare_set("closed", "",
// "failed"). Every node polling the round sees "failed" and raises the
// reason, naming the node it came from, instead of waiting on or losing the
// store: the agent serving the store waits for them (Note [ember-run agent]).
// The compare_set decides races: a round that closed normally meanwhile is
// not failed (a timed-out node then goes on with it; an interrupted one
// writes the round's "shutdown" instead, which stops the others' workers).
//
// Note [Scale-up]: as torchelastic, a node that comes while the job runs
// with fewer than max_nodes joins it: it finds round r closed below
// max_nodes, joins round r + 1 and waits there; the agents of round r see
// round r + 1's "joined" counter move (nodes_waiting, every monitor
// interval), stop their workers and join round r + 1 too, whose workers get
// the new world size. Such a round is not a restart: RESTART_COUNT stays
// (Note [ember-run agent]). A round closed with max_nodes refuses a late node;
// a job that finished (job key "finished") refuses it too.

std::string job_key(const std::string& id, const std::string& name) { return "ember_run/" + id + "/" + name; }

std::string round_key(const std::string& id, int round, const std::string& name) {
  return job_key(id, "round" + std::to_string(round) + "/" + name);
}

int free_port_on(const std::string& addr) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* info = nullptr;
  const int rc = ::getaddrinfo(addr.c_str(), "0", &hints, &info);
  EMBER_CHECK(rc == 0, "ember-run: cannot resolve ", addr, ": ", ::gai_strerror(rc));
  int port = -1;
  for (addrinfo* ai = info; ai && port < 0; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype, 0);
    if (fd < 0) continue;
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) == 0) {
      port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                         : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    }
    ::close(fd);
  }
  ::freeaddrinfo(info);
  EMBER_CHECK(port > 0, "ember-run: no free port on ", addr, ": ", std::strerror(errno));
  return port;
}

namespace {

struct Participant {
  int join_index = 0;
  int requested_rank = -1;
  std::string addr;
  int nproc = 1;
  int previous_rank = -1;  // the node's group rank in the round it ran last
};

Participant parse_participant(int index, const std::string& text) {
  Participant p;
  p.join_index = index;
  std::istringstream in(text);
  in >> p.requested_rank >> p.addr >> p.nproc >> p.previous_rank;
  EMBER_CHECK(!in.fail() && p.nproc >= 1, "ember-run: corrupt rendezvous record of node ", index, ": '", text, "'");
  return p;
}

}  // namespace

namespace {

const std::string kFailedRound = "failed";

// Fails round for every node (Note [Failed rendezvous]); false when the round
// had closed normally meanwhile.
bool fail_round(Store& store, const std::function<std::string(const std::string&)>& key,
                const std::string& local_addr, const std::string& reason) {
  store.compare_set(key("failure"), "", local_addr + "\n" + reason);
  return store.compare_set(key("closed"), "", kFailedRound) == kFailedRound;
}

// Joins round `round`; nullopt when it closed, below max_nodes, before this
// node joined (a running job it may scale up: the caller goes on to the next
// round).
std::optional<RendezvousResult> join_round(Store& store, const LaunchOptions& o, int round, int previous_rank,
                                           const std::string& local_addr, const std::atomic<int>& interrupted) {
  using Clock = std::chrono::steady_clock;
  const std::function<std::string(const std::string&)> key = [&](const std::string& name) {
    return round_key(o.rdzv_id, round, name);
  };
  const auto start = Clock::now();
  const int index = static_cast<int>(store.add(key("joined"), 1)) - 1;
  store.set(key("node/" + std::to_string(index)),
            std::to_string(o.node_rank) + " " + local_addr + " " + std::to_string(o.nproc_per_node) + " " +
                std::to_string(previous_rank));

  std::optional<Clock::time_point> min_reached;
  while (!store.check({key("closed")})) {
    EMBER_CHECK(!store.check({job_key(o.rdzv_id, "finished")}), "ember-run: rendezvous '", o.rdzv_id,
                "': the job finished (round ", store.get(job_key(o.rdzv_id, "finished")),
                " succeeded) before this node could join");
    if (const int sig = interrupted.load()) {
      const std::string reason = "interrupted (signal " + std::to_string(sig) + ")";
      if (!fail_round(store, key, local_addr, reason))
        store.compare_set(key("shutdown"), "", "node " + local_addr + " got signal " + std::to_string(sig));
      EMBER_FAIL("ember-run: interrupted (signal ", sig, ") during the rendezvous of round ", round);
    }
    const int joined = static_cast<int>(store.add(key("joined"), 0));
    const auto now = Clock::now();
    if (joined >= o.min_nodes && !min_reached) min_reached = now;
    const bool full = joined >= o.max_nodes;
    const bool last_call_over =
        min_reached && std::chrono::duration<double>(now - *min_reached).count() >= o.last_call_timeout_s;
    if (full || last_call_over) {
      store.compare_set(key("closed"), "", std::to_string(std::min(joined, o.max_nodes)));
      break;
    }
    const double waited = std::chrono::duration<double>(now - start).count();
    if (waited >= o.join_timeout_s) {
      std::ostringstream reason;
      reason << "only " << joined << " of at least " << o.min_nodes << " nodes joined within the join timeout of "
             << o.join_timeout_s << " s";
      if (fail_round(store, key, local_addr, reason.str()))
        EMBER_FAIL("ember-run: rendezvous '", o.rdzv_id, "' round ", round, ": ", reason.str());
      break;  // the round closed meanwhile: go on with it
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string closed = store.get(key("closed"));
  if (closed == kFailedRound) {
    const std::string failure = store.get(key("failure"));
    const size_t newline = failure.find('\n');
    EMBER_FAIL("ember-run: rendezvous '", o.rdzv_id, "' round ", round, " failed on node ",
               failure.substr(0, newline), ": ", newline == std::string::npos ? "" : failure.substr(newline + 1));
  }
  const int nodes = std::stoi(closed);
  if (index >= nodes && nodes < o.max_nodes) return std::nullopt;  // scale-up: wait in the next round
  EMBER_CHECK(index < nodes, "ember-run: rendezvous '", o.rdzv_id, "' round ", round, " closed with ", nodes,
              " nodes (the most --nnodes allows) before this node joined (as node ", index + 1, ")");

  std::vector<Participant> all;
  for (int k = 0; k < nodes; ++k) all.push_back(parse_participant(k, store.get(key("node/" + std::to_string(k)))));
  // --node-rank first (in its order), then the nodes of an earlier round in
  // their order there (a scale-up keeps their ranks), then the newcomers in
  // the order of joining.
  std::stable_sort(all.begin(), all.end(), [](const Participant& a, const Participant& b) {
    const int ra = a.requested_rank >= 0 ? a.requested_rank : INT_MAX;
    const int rb = b.requested_rank >= 0 ? b.requested_rank : INT_MAX;
    if (ra != rb) return ra < rb;
    const int pa = a.previous_rank >= 0 ? a.previous_rank : INT_MAX;
    const int pb = b.previous_rank >= 0 ? b.previous_rank : INT_MAX;
    return pa != pb ? pa < pb : a.join_index < b.join_index;
  });
  for (size_t k = 1; k < all.size(); ++k) {
    EMBER_CHECK(all[k].requested_rank < 0 || all[k].requested_rank != all[k - 1].requested_rank,
                "ember-run: two nodes (", all[k - 1].addr, ", ", all[k].addr, ") asked for --node-rank ",
                all[k].requested_rank);
  }
  for (const Participant& p : all) {
    EMBER_CHECK(p.requested_rank < nodes, "ember-run: --node-rank ", p.requested_rank, " of node ", p.addr,
                " is out of range for ", nodes, " nodes");
  }

  RendezvousResult r;
  r.round = round;
  r.group_world_size = nodes;
  r.world_size = 0;
  for (int k = 0; k < nodes; ++k) {
    if (all[k].join_index == index) {
      r.group_rank = k;
      r.rank_offset = r.world_size;
    }
    r.world_size += all[k].nproc;
  }
  if (r.group_rank == 0) {
    // torchelastic: the master is on the node of group rank 0, on a free port.
    store.set(key("master"), local_addr + " " + std::to_string(free_port_on(local_addr)));
  }
  std::istringstream master(store.get(key("master")));
  master >> r.master_addr >> r.master_port;
  EMBER_CHECK(!master.fail(), "ember-run: corrupt master record of round ", round);
  return r;
}

}  // namespace

RendezvousResult rendezvous(Store& store, const LaunchOptions& o, int& round, int previous_rank,
                            const std::string& local_addr, const std::atomic<int>& interrupted) {
  for (;; ++round) {
    if (auto result = join_round(store, o, round, previous_rank, local_addr, interrupted)) return *result;
  }
}

bool nodes_waiting(Store& store, const LaunchOptions& o, const RendezvousResult& r) {
  return r.group_world_size < o.max_nodes && store.add(round_key(o.rdzv_id, r.round + 1, "joined"), 0) > 0;
}

}  // namespace ember::distributed::launcher
