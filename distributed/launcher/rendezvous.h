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

// Joins round `round` and waits for it to close; when it closed below
// max_nodes before this node joined (a running job), joins the next round
// instead (Note [Scale-up]): `round` is then the round joined last (also
// when the rendezvous throws). Throws
// ember::Error when min_nodes never joined within join_timeout_s (the round
// then fails for every node: Note [Failed rendezvous]), when the round closed
// with max_nodes before this node joined, when the job finished, on a
// duplicate --node-rank, or when *interrupted becomes non-zero (a signal to
// the agent).
// previous_rank: this node's group rank in the round it ran last (-1: none);
// nodes without --node-rank keep their order across rounds, newcomers after.
RendezvousResult rendezvous(Store& store, const LaunchOptions& options, int& round, int previous_rank,
                            const std::string& local_addr, const std::atomic<int>& interrupted);

// Whether a node waits to join the round after r (Note [Scale-up]) while
// round r runs with fewer than max_nodes.
bool nodes_waiting(Store& store, const LaunchOptions& options, const RendezvousResult& r);

// A TCP port free on addr a moment ago.
int free_port_on(const std::string& addr);

}  // namespace ember::distributed::launcher
