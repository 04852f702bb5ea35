#pragma once
// ember-run's rendezvous: torchelastic's c10d rendezvous over a Store, one
// round per attempt (Note [Rendezvous rounds] in rendezvous.cpp).
#include <atomic>
#include <string>

#include <ember/distributed/store.h>

#include "launch_options.h"

namespace ember::distributed::launcher {

// The store keys of job `id`, round `round`: "ember_run/<id>/round<r>/<name>".
std::string round_key(const std::string& id, int round, const std::string& name);
std::string job_key(const std::string& id, const std::string& name);

struct RendezvousResult {
  int round = 0;
  int group_rank = 0;        // this node's rank among the nodes
  int group_world_size = 1;  // nodes in the round
  int rank_offset = 0;       // RANK of this node's LOCAL_RANK 0
  int world_size = 1;        // workers of all nodes
  std::string master_addr;
  int master_port = 0;
};

// Joins round `round` and waits for it to close. Throws ember::Error when
// min_nodes never joined within join_timeout_s, when the round closed before
// this node joined, on a duplicate --node-rank, or when *interrupted becomes
// non-zero (a signal to the agent).
RendezvousResult rendezvous(Store& store, const LaunchOptions& options, int round, const std::string& local_addr,
                            const std::atomic<int>& interrupted);

// A TCP port free on addr a moment ago.
int free_port_on(const std::string& addr);

}  // namespace ember::distributed::launcher
