#include "agent_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <ember/core/error.h>

extern char** environ;

namespace ember::testing {

AgentProcess::AgentProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv_text = {EMBER_RUN_PATH};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : env) vars[name] = value;
  std::vector<std::string> env_text;
  for (const auto& [name, value] : vars) env_text.push_back(name + "=" + value);
  std::vector<char*> argv, envp;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string log = dir_ / "agent.log";
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EMBER_CHECK(fd >= 0, "cannot create ", log);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fd);
  EMBER_CHECK(pid_ > 0, "fork failed");
}

AgentProcess::~AgentProcess() {
  if (pid_ > 0 && status_ == -1) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

int AgentProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (status_ == -1) {
    int status = 0;
    const pid_t got = ::waitpid(pid_, &status, WNOHANG);
    if (got == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      status_ = -2;  // reaped; reported as -1 below
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status_ == -2 ? -1 : status_;
}

void AgentProcess::kill(int sig) {
  if (status_ == -1) ::kill(pid_, sig);
}

std::string AgentProcess::output() const {
  std::ifstream in(dir_ / "agent.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool wait_for_file(const std::string& path, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace ember::testing
