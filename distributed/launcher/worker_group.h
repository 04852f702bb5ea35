#pragma once
// The workers of one node in one round: started with their environment and a
// log file each, watched, and stopped (SIGTERM, then SIGKILL after a grace
// period), always reaped.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ember::distributed::launcher {

struct WorkerSpec {
  std::map<std::string, std::string> env;  // added to the agent's environment
  std::string log_path;                    // stdout and stderr go here
};

struct WorkerExit {
  int local_rank = -1;
  bool exited = false;  // exited with `code`, else killed by `signal`
  int code = 0;
  int signal = 0;
  bool ok() const { return exited && code == 0; }
  // "exited with code 3" or "killed by signal 11 (SIGSEGV)".
  std::string describe() const;
};

class WorkerGroup {
 public:
  // Starts one process per spec running program (looked up in PATH).
  WorkerGroup(const std::vector<std::string>& program, const std::vector<WorkerSpec>& specs);
  // Stops whatever still runs (stop()).
  ~WorkerGroup();
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  // Reaps the workers that ended; returns the first one that did not succeed
  // (in the order they were reaped), once.
  std::optional<WorkerExit> poll_failure();
  bool all_succeeded() const;
  void signal_all(int sig);
  // SIGTERM to the workers still running, SIGKILL to those still running after
  // `grace`; reaps them all.
  void stop(std::chrono::milliseconds grace);

 private:
  std::vector<pid_t> pids_;
  std::vector<std::optional<WorkerExit>> exits_;
  bool failure_reported_ = false;
};

}  // namespace ember::distributed::launcher
