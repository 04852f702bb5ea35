#include "worker_group.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include <ember/core/error.h>

extern char** environ;

namespace ember::distributed::launcher {

std::string WorkerExit::describe() const {
  if (exited) return "exited with code " + std::to_string(code);
  const char* name = sigabbrev_np(signal);
  return "killed by signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : "");
}

namespace {

// The child's side of fork(): only async-signal-safe calls until exec (the
// agent may run the TCPStore server's thread).
[[noreturn]] void exec_worker(char* const* argv, char* const* envp, int log_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a worker never outlives its agent
  ::dup2(log_fd, STDOUT_FILENO);
  ::dup2(log_fd, STDERR_FILENO);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execvpe(argv[0], argv, envp);
  const char* why = std::strerror(errno);
  const char prefix[] = "ember-run: cannot execute ";
  (void)!::write(STDERR_FILENO, prefix, sizeof prefix - 1);
  (void)!::write(STDERR_FILENO, argv[0], std::strlen(argv[0]));
  (void)!::write(STDERR_FILENO, ": ", 2);
  (void)!::write(STDERR_FILENO, why, std::strlen(why));
  (void)!::write(STDERR_FILENO, "\n", 1);
  ::_exit(127);
}

}  // namespace

WorkerGroup::WorkerGroup(const std::vector<std::string>& program, const std::vector<WorkerSpec>& specs) {
  std::vector<char*> argv;
  for (const std::string& a : program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const WorkerSpec& spec : specs) {
    // The environment is built before fork: the child may not allocate.
    std::map<std::string, std::string> vars;
    for (char** e = environ; *e; ++e) {
      const std::string entry = *e;
      const auto eq = entry.find('=');
      if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& [name, value] : spec.env) vars[name] = value;
    std::vector<std::string> entries;
    for (const auto& [name, value] : vars) entries.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);

    const int log_fd = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      const std::string why = std::strerror(errno);
      stop(std::chrono::milliseconds(0));
      EMBER_CHECK(false, "ember-run: cannot create the log file ", spec.log_path, ": ", why);
    }
    const pid_t pid = ::fork();
    if (pid == 0) exec_worker(argv.data(), envp.data(), log_fd);
    const int fork_errno = errno;
    ::close(log_fd);
    if (pid < 0) {
      stop(std::chrono::milliseconds(0));
      EMBER_CHECK(false, "ember-run: fork failed: ", std::strerror(fork_errno));
    }
    pids_.push_back(pid);
    exits_.emplace_back();
  }
}

WorkerGroup::~WorkerGroup() { stop(std::chrono::milliseconds(0)); }

std::optional<WorkerExit> WorkerGroup::poll_failure() {
  std::optional<WorkerExit> failure;
  for (size_t k = 0; k < pids_.size(); ++k) {
    if (exits_[k]) continue;
    int status = 0;
    const pid_t got = ::waitpid(pids_[k], &status, WNOHANG);
    if (got != pids_[k]) continue;
    WorkerExit exit;
    exit.local_rank = static_cast<int>(k);
    exit.exited = WIFEXITED(status);
    exit.code = exit.exited ? WEXITSTATUS(status) : 0;
    exit.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    exits_[k] = exit;
    if (!exit.ok() && !failure_reported_ && !failure) failure = exit;
  }
  if (failure) failure_reported_ = true;
  return failure;
}

bool WorkerGroup::all_succeeded() const {
  for (const auto& exit : exits_) {
    if (!exit || !exit->ok()) return false;
  }
  return true;
}

void WorkerGroup::signal_all(int sig) {
  for (size_t k = 0; k < pids_.size(); ++k) {
    if (!exits_[k]) ::kill(pids_[k], sig);
  }
}

void WorkerGroup::stop(std::chrono::milliseconds grace) {
  signal_all(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    poll_failure();
    bool running = false;
    for (const auto& exit : exits_) running = running || !exit;
    if (!running) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  signal_all(SIGKILL);
  for (size_t k = 0; k < pids_.size(); ++k) {
    if (exits_[k]) continue;
    int status = 0;
    while (::waitpid(pids_[k], &status, 0) < 0 && errno == EINTR) {
    }
    WorkerExit exit;
    exit.local_rank = static_cast<int>(k);
    exit.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    exit.exited = WIFEXITED(status);
    exit.code = exit.exited ? WEXITSTATUS(status) : 0;
    exits_[k] = exit;
  }
}

}  // namespace ember::distributed::launcher
