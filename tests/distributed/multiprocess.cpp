#include "multiprocess.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <ember/core/error.h>

extern char** environ;

namespace ember::testing {

// Note [Worker processes]: a rank is this test binary, exec'd afresh (never a
// bare fork of a process that may run threads), with EMBER_DIST_WORKER naming
// the function to run. A gtest Environment registered below runs before any
// test: in a rank process it runs the worker and _exit()s with 0, or with 1
// after printing the exception, so the tests themselves never run there.
// Every rank gets PR_SET_PDEATHSIG = SIGKILL: if the test process dies, its
// ranks die with it instead of lingering.
namespace {

std::map<std::string, WorkerFunction>& workers() {
  static std::map<std::string, WorkerFunction> registry;
  return registry;
}

class WorkerDispatch : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* name = std::getenv("EMBER_DIST_WORKER");
    if (!name) return;
    const int rank = static_cast<int>(env_int("EMBER_DIST_RANK"));
    const int world_size = static_cast<int>(env_int("EMBER_DIST_WORLD_SIZE"));
    int code = 0;
    try {
      auto it = workers().find(name);
      EMBER_CHECK(it != workers().end(), "no worker named ", name);
      it->second(rank, world_size);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d (%s) failed: %s\n", rank, name, e.what());
      code = 1;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
  }
};

[[maybe_unused]] ::testing::Environment* const dispatch = ::testing::AddGlobalTestEnvironment(new WorkerDispatch);

}  // namespace

bool register_worker(const char* name, WorkerFunction function) {
  EMBER_CHECK(workers().emplace(name, function).second, "two workers named ", name);
  return true;
}

std::string RankExit::describe() const {
  if (timed_out) return "still running at the deadline (killed)";
  if (exited) return "exit code " + std::to_string(code);
  if (signal) return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "not reaped";
}

Ranks::Ranks(const std::string& worker, int world_size, const std::map<std::string, std::string>& env) {
  EMBER_CHECK(world_size >= 1, "Ranks: world_size must be positive");
  std::string exe(4096, '\0');
  const ssize_t len = ::readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  EMBER_CHECK(len > 0, "Ranks: readlink(/proc/self/exe) failed");
  exe.resize(static_cast<size_t>(len));
  const pid_t parent = ::getpid();
  for (int rank = 0; rank < world_size; ++rank) {
    // Everything the child needs is prepared before fork(): between fork and
    // exec only async-signal-safe calls are allowed.
    std::map<std::string, std::string> vars;
    for (char** e = environ; *e; ++e) {
      const std::string entry(*e);
      const auto eq = entry.find('=');
      if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& [k, v] : env) vars[k] = v;
    vars["EMBER_DIST_WORKER"] = worker;
    vars["EMBER_DIST_RANK"] = std::to_string(rank);
    vars["EMBER_DIST_WORLD_SIZE"] = std::to_string(world_size);
    vars.erase("GTEST_FILTER");
    std::vector<std::string> entries;
    for (const auto& [k, v] : vars) entries.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : entries) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<char*> argv{exe.data(), nullptr};
    const std::string log_path = logs_ / ("rank" + std::to_string(rank) + ".log");

    const pid_t pid = ::fork();
    if (pid < 0) {
      const std::string error = std::strerror(errno);
      kill_all();  // the ranks started so far: a throwing constructor runs no destructor
      EMBER_FAIL("Ranks: fork failed: ", error);
    }
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::close(fd);
      }
      ::execve(exe.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    pids_.push_back(pid);
    done_.push_back(false);
    exits_.emplace_back();
  }
}

Ranks::~Ranks() { kill_all(); }

void Ranks::kill_all() {
  for (int rank = 0; rank < size(); ++rank) {
    if (done_[rank]) continue;
    ::kill(pids_[rank], SIGKILL);
    reap(rank, /*block=*/true);
  }
}

void Ranks::kill(int rank, int sig) {
  if (!done_.at(rank)) ::kill(pids_[rank], sig);
}

bool Ranks::reap(int rank, bool block) {
  if (done_[rank]) return true;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pids_[rank], &status, block ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == 0) return false;
  done_[rank] = true;
  if (r > 0) {
    RankExit& e = exits_[rank];
    e.exited = WIFEXITED(status);
    e.code = e.exited ? WEXITSTATUS(status) : -1;
    e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return true;
}

const RankExit& Ranks::wait(int rank, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reap(rank, false)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pids_[rank], SIGKILL);
      reap(rank, true);
      exits_[rank].timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return exits_[rank];
}

const std::vector<RankExit>& Ranks::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int rank = 0; rank < size(); ++rank) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    wait(rank, std::max(left, std::chrono::milliseconds(0)));
  }
  return exits_;
}

std::string Ranks::log(int rank) const {
  std::ifstream in(logs_ / ("rank" + std::to_string(rank) + ".log"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

::testing::AssertionResult Ranks::all_succeed(std::chrono::milliseconds timeout) {
  wait(timeout);
  std::string failures;
  for (int rank = 0; rank < size(); ++rank) {
    if (exits_[rank].ok()) continue;
    failures += "\nrank " + std::to_string(rank) + ": " + exits_[rank].describe() + "; its log:\n" + log(rank);
  }
  if (failures.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "ranks failed:" << failures;
}

int64_t env_int(const char* name) { return std::stoll(env_string(name)); }

std::string env_string(const char* name) {
  const char* value = std::getenv(name);
  EMBER_CHECK(value != nullptr, "environment variable ", name, " is not set");
  return value;
}

uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EMBER_CHECK(fd >= 0, "free_port: socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  EMBER_CHECK(ok, "free_port: bind failed");
  return ntohs(addr.sin_port);
}

}  // namespace ember::testing
