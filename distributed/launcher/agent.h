#pragma once
// ember-run's agent: rendezvous, start the node's workers, watch them, restart
// the whole group after a failure while the shared budget lasts, and report
// (Note [ember-run agent] in agent.cpp).
#include "launch_options.h"

namespace ember::distributed::launcher {

// Runs the job; returns the agent's exit status (0: every worker of the last
// round succeeded; 1: a failure with the restart budget spent, or the
// rendezvous failed; 128 + signal: SIGINT / SIGTERM to the agent, forwarded
// to the workers). Installs the SIGINT / SIGTERM handlers.
int run_agent(const LaunchOptions& options);

}  // namespace ember::distributed::launcher
