// External peers: spawning the command, reading its JSON line and result file.
#include "external_peer.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

extern char** environ;

namespace ember_bench {

namespace {

struct Output {
  int status = -1;  // exit status, or -1 when the command could not run or was killed
  std::string out;
  std::string error;
};

// Runs argv (looked up on PATH) with stdout captured; stderr passes through so
// that a failing peer's traceback shows in the run's log.
Output run_capturing_stdout(const std::vector<std::string>& argv) {
  Output r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    r.error = "cannot run " + argv[0] + ": " + std::strerror(spawned);
    return r;
  }
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    r.out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  return r;
}

std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "";
  size_t begin = s.rfind('\n', end);
  return s.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

// The text after `"key":` in a flat JSON object, or npos. Enough for the
// peers' one-line objects of numbers and plain strings.
size_t value_at(const std::string& json, const std::string& key) {
  const size_t k = json.find("\"" + key + "\"");
  if (k == std::string::npos) return k;
  const size_t colon = json.find(':', k);
  return colon == std::string::npos ? colon : json.find_first_not_of(" \t", colon + 1);
}

bool number_field(const std::string& json, const std::string& key, double& out) {
  const size_t v = value_at(json, key);
  if (v == std::string::npos) return false;
  char* end = nullptr;
  out = std::strtod(json.c_str() + v, &end);
  return end != json.c_str() + v;
}

bool string_field(const std::string& json, const std::string& key, std::string& out) {
  const size_t v = value_at(json, key);
  if (v == std::string::npos || json[v] != '"') return false;
  const size_t close = json.find('"', v + 1);
  out = json.substr(v + 1, close == std::string::npos ? std::string::npos : close - v - 1);
  return true;
}

std::string check_result(const std::string& path, const ember::Tensor& ember_result, double rtol, double atol) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "no result file";
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t expected = static_cast<size_t>(ember_result.numel()) * ember_result.element_size();
  if (bytes.size() != expected) {
    std::ostringstream s;
    s << "result of " << bytes.size() << " bytes vs Ember's " << expected;
    return s.str();
  }
  return compare(ember_result, peer_tensor_from_bytes(bytes.data(), ember_result), rtol, atol);
}

}  // namespace

ExternalMeasurement run_external_peer(const ExternalPeer& peer, const ember::Tensor& ember_result,
                                      double target_s, int threads, double rtol, double atol) {
  ExternalMeasurement m;
  const std::string result_path = scratch_dir() + "/" + peer.name + ".result";
  std::filesystem::remove(result_path);
  std::vector<std::string> argv = peer.command;
  argv.insert(argv.end(), {"--target-s", std::to_string(target_s), "--threads", std::to_string(threads),
                           "--result", result_path});
  const Output out = run_capturing_stdout(argv);
  const std::string json = last_line(out.out);
  if (!out.error.empty()) {
    m.error = out.error;
  } else if (string_field(json, "skip", m.skipped)) {
    // Not an error: the peer is not available on this machine.
  } else if (out.status != 0) {
    m.error = peer.name + " peer exited with status " + std::to_string(out.status);
  } else {
    double median = 0, fastest = 0, reps = 0;
    if (!number_field(json, "median_s", median) || !number_field(json, "min_s", fastest) ||
        !number_field(json, "reps", reps)) {
      m.error = "unreadable output from " + peer.name + ": " + json;
    } else {
      m.median_s = median;
      m.min_s = fastest;
      m.reps = static_cast<int>(reps);
      if (!string_field(json, "unchecked", m.unchecked))
        m.mismatch = check_result(result_path, ember_result, rtol, atol);
    }
  }
  std::filesystem::remove(result_path);
  return m;
}

}  // namespace ember_bench
