#pragma once
// An ember-run agent started by a test: its output (stdout and stderr) goes to
// a file, wait() has a deadline, and the destructor kills and reaps an agent
// still running (its workers die with it: PR_SET_PDEATHSIG).
#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace ember::testing {

class AgentProcess {
 public:
  // Runs the ember-run binary with args, env added to this process's environment.
  explicit AgentProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {});
  ~AgentProcess();
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  // The exit code, 128 + signal when killed by one, or -1 when the agent still
  // ran at the deadline (it is killed then).
  int wait(std::chrono::milliseconds timeout);
  void kill(int sig);
  std::string output() const;

 private:
  TempDir dir_{"ember_run_agent"};
  pid_t pid_ = -1;
  int status_ = -1;
};

// Whether path exists, polling until the timeout.
bool wait_for_file(const std::string& path, std::chrono::milliseconds timeout);

}  // namespace ember::testing
