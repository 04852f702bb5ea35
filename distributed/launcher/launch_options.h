#pragma once
// The command line of ember-run (torchrun's flags, docs/distributed.md
// "Launcher: ember-run").
#include <string>
#include <vector>

namespace ember::distributed::launcher {

struct LaunchOptions {
  int nproc_per_node = 1;
  // --nnodes N or MIN:MAX: the rendezvous round closes once max_nodes agents
  // joined, or last_call_timeout_s after min_nodes had joined.
  int min_nodes = 1;
  int max_nodes = 1;
  // --node-rank K: this node's GROUP_RANK (-1: the order of joining decides).
  int node_rank = -1;
  // --rdzv-endpoint host:port: the TCPStore of the rendezvous. The agent that
  // can listen there serves it; the others connect. Empty: a store of this
  // agent on 127.0.0.1 (one node).
  std::string rdzv_endpoint;
  std::string rdzv_id = "none";
  // --local-addr: the address other nodes reach this node at (MASTER_ADDR when
  // this node has group rank 0). Empty: the address this machine connects to the
  // rendezvous endpoint from (127.0.0.1 without an endpoint).
  std::string local_addr;
  // --max-restarts R: restarts of the whole group, one budget for all nodes
  // (the first agent's value, kept in the store).
  int max_restarts = 0;
  double monitor_interval_s = 0.1;
  // --rdzv-conf join_timeout=S,last_call_timeout=S (torchrun's names and defaults).
  double join_timeout_s = 600;
  double last_call_timeout_s = 30;
  // --stop-timeout S: after SIGTERM, how long workers get before SIGKILL.
  double stop_timeout_s = 5;
  // --log-dir DIR: per-rank logs (default: a new /tmp/ember-run-<id>-XXXXXX).
  std::string log_dir;
  // --tail-lines N: lines of the failed rank's log in the final summary.
  int tail_lines = 10;
  std::vector<std::string> program;  // the program and its arguments
};

// Parses argv (argv[0] is ember-run itself). Throws ember::Error naming the
// bad flag or value; the options stop at the first argument that is not a
// flag (the program), or after "--".
LaunchOptions parse_launch_options(const std::vector<std::string>& args);

std::string launch_usage();

}  // namespace ember::distributed::launcher
