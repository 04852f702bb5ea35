// ember_bench_distributed: the distributed suite (benchmarks/run.sh
// distributed). Ember's collectives on 2 rank processes vs torch.distributed's
// gloo backend on 2 processes of Debian's python3 (peers/distributed.py), and
// DDP training steps of a small CNN and ResNet-18 against their compute and
// all_reduce parts timed alone (distributed_ddp.cpp).
//
// Not a suite of ember_bench (Note [Distributed bench processes]): every side
// runs in rank processes of its own, so this binary only starts them, reads
// their timings and prints the table.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <netinet/in.h>
#include <sstream>
#include <string>
#include <sys/socket.h>
#include <vector>

#include <ember/core/parallel.h>
#include <ember/distributed/distributed.h>
#include <ember/ember.h>

#include "distributed_ddp.h"

// Note [Distributed bench processes]: a collective's time is a property of
// the group, so each side runs as 2 processes that talk over TCP on loopback,
// as a real job does: Ember's ranks are this binary exec'd again
// (EMBER_BENCH_DIST_RANK set), the peer's are peers/distributed.py. Both follow
// peer_timing.py's policy (2 warm-up runs, then runs until 5 runs and
// --target-s seconds, or 3 runs and 2 s), with one difference forced by the
// group: rank 0 decides when to stop and tells rank 1 through a one-element
// all_reduce after each run, outside the timed region, on both sides. The time
// of a run is rank 0's wall time of the one collective call (blocking: the
// result is in place when it returns).

namespace dist = ember::distributed;

namespace {

using Timing = ember_bench_ddp::Timing;

Timing summarize(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  Timing t;
  t.reps = static_cast<int>(times.size());
  t.min_s = times.front();
  t.median_s = times.size() % 2 ? times[times.size() / 2]
                                : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  return t;
}

// One workload on this rank: warm-up, then timed runs while rank 0 says go on.
Timing time_collective(const std::function<void()>& call, double target_s) {
  for (int k = 0; k < 2; ++k) call();
  std::vector<double> times;
  ember::Tensor go = ember::zeros({1});
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    double total = 0;
    for (double t : times) total += t;
    const bool done = (times.size() >= 5 && total >= target_s) || (times.size() >= 3 && total >= 2.0);
    go.fill_(dist::get_rank() == 0 && !done ? 1.0 : 0.0);
    dist::all_reduce(go, dist::ReduceOp::MAX);
    if (go.item<float>() == 0) break;
  }
  return summarize(times);
}

void check_sum(const ember::Tensor& t, float expected, const std::string& what) {
  const float* v = t.data_ptr<float>();
  const int64_t n = t.numel();
  for (int64_t k : {int64_t{0}, n / 2, n - 1})
    EMBER_CHECK(v[k] == expected, what, ": element ", k, " is ", v[k], ", expected ", expected);
}

// A rank process: every workload, rank 0 writing "name median_s min_s reps" lines.
int run_rank(double target_s, const std::string& result_path, const std::string& filter) {
  dist::init_process_group("gloo", {.timeout = std::chrono::seconds(120)});
  const int rank = static_cast<int>(dist::get_rank());
  std::ofstream out;
  if (rank == 0) out.open(result_path);
  auto record = [&](const std::string& name, const Timing& t) {
    if (rank == 0) out << name << " " << t.median_s << " " << t.min_s << " " << t.reps << "\n" << std::flush;
  };
  auto wanted = [&](const std::string& name) { return filter.empty() || name.find(filter) != std::string::npos; };
  for (int64_t n : {int64_t{1} << 10, int64_t{1} << 20, int64_t{25} << 20}) {
    const std::string name = n == 1024 ? "all_reduce_1K" : n == (1 << 20) ? "all_reduce_1M" : "all_reduce_25M";
    if (!wanted(name)) continue;
    ember::Tensor t = ember::full({n}, static_cast<double>(rank + 1));
    dist::all_reduce(t);  // the values are right before anything is timed
    check_sum(t, 3.0f, name);
    t.fill_(0.0);  // zeros stay zeros: no overflow, no denormals over the runs
    record(name, time_collective([&] { dist::all_reduce(t); }, target_s));
  }
  if (wanted("all_gather_25M")) {
    const ember::Tensor t = ember::full({int64_t{25} << 20}, static_cast<double>(rank));
    std::vector<ember::Tensor> outs = {ember::empty({int64_t{25} << 20}), ember::empty({int64_t{25} << 20})};
    dist::all_gather(outs, t);
    check_sum(outs[0], 0.0f, "all_gather_25M");
    check_sum(outs[1], 1.0f, "all_gather_25M");
    record("all_gather_25M", time_collective([&] { dist::all_gather(outs, t); }, target_s));
  }
  if (wanted("broadcast_25M")) {
    ember::Tensor t = ember::full({int64_t{25} << 20}, rank == 0 ? 7.0 : 0.0);
    dist::broadcast(t, 0);
    check_sum(t, 7.0f, "broadcast_25M");
    record("broadcast_25M", time_collective([&] { dist::broadcast(t, 0); }, target_s));
  }
  if (wanted("barrier")) record("barrier", time_collective([] { dist::barrier(); }, target_s));
  ember_bench_ddp::run_ddp_workloads([&](const std::function<void()>& call) { return time_collective(call, target_s); },
                                     record, filter);
  dist::destroy_process_group();
  return 0;
}

uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Runs argv with extra environment; the exit status (-1: did not exit normally).
pid_t spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::perror(argv[0]);
    ::_exit(127);
  }
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::map<std::string, Timing> read_timings(const std::string& path) {
  std::map<std::string, Timing> result;
  std::ifstream in(path);
  std::string name;
  Timing t;
  while (in >> name >> t.median_s >> t.min_s >> t.reps) result[name] = t;
  return result;
}

// Ember's 2 ranks: this binary again, rank mode.
std::map<std::string, Timing> run_ember(int threads, double target_s, const std::string& filter,
                                        const std::string& dir) {
  const std::string result = dir + "/ember.txt";
  const std::string port = std::to_string(free_port());
  std::vector<pid_t> pids;
  for (int rank = 0; rank < 2; ++rank) {
    pids.push_back(spawn({"/proc/self/exe"},
                         {{"EMBER_BENCH_DIST_RANK", std::to_string(rank)}, {"RANK", std::to_string(rank)},
                          {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port},
                          {"EMBER_BENCH_DIST_TARGET_S", std::to_string(target_s)},
                          {"EMBER_BENCH_DIST_THREADS", std::to_string(threads)},
                          {"EMBER_BENCH_DIST_RESULT", result}, {"EMBER_BENCH_DIST_FILTER", filter}}));
  }
  for (pid_t pid : pids) EMBER_CHECK(wait_status(pid) == 0, "an Ember rank failed (its output is above)");
  return read_timings(result);
}

std::map<std::string, Timing> run_peer(int threads, double target_s, const std::string& filter,
                                       const std::string& dir) {
  const std::string result = dir + "/torch.txt";
  const char* python = std::getenv("EMBER_BENCH_PYTHON");
  const pid_t pid = spawn({python ? python : "/usr/bin/python3", EMBER_BENCH_SOURCE_DIR "/peers/distributed.py",
                           "--threads", std::to_string(threads), "--target-s", std::to_string(target_s),
                           "--result", result, "--filter", filter},
                          {});
  if (wait_status(pid) != 0) {
    std::fprintf(stderr, "the torch.distributed peer failed (its output is above): no peer column\n");
    return {};
  }
  return read_timings(result);
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* rank = std::getenv("EMBER_BENCH_DIST_RANK")) {
    (void)rank;
    ember::set_num_threads(std::atoi(std::getenv("EMBER_BENCH_DIST_THREADS")));
    return run_rank(std::atof(std::getenv("EMBER_BENCH_DIST_TARGET_S")), std::getenv("EMBER_BENCH_DIST_RESULT"),
                    std::getenv("EMBER_BENCH_DIST_FILTER") ? std::getenv("EMBER_BENCH_DIST_FILTER") : "");
  }
  // ember_bench's flags: distributed [--threads N] [--target-s S] [--out DIR] [--commit C] [--filter F].
  int threads = 2;
  double target_s = 1.0;
  std::string out = "bench-results", commit = "unknown", filter;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "distributed") continue;
    EMBER_CHECK(k + 1 < argc, "ember_bench_distributed: ", a, " needs a value");
    if (a == "--threads") threads = std::atoi(argv[++k]);
    else if (a == "--target-s") target_s = std::atof(argv[++k]);
    else if (a == "--out") out = argv[++k];
    else if (a == "--commit") commit = argv[++k];
    else if (a == "--filter") filter = argv[++k];
    else EMBER_CHECK(false, "ember_bench_distributed: unknown flag ", a,
                     " (--threads, --target-s, --out, --commit, --filter)");
  }
  std::filesystem::create_directories(out);
  char scratch[] = "/tmp/ember_bench_dist_XXXXXX";
  EMBER_CHECK(::mkdtemp(scratch), "mkdtemp failed");
  const auto ember = run_ember(threads, target_s, filter, scratch);
  const auto peer = run_peer(threads, target_s, filter, scratch);
  std::filesystem::remove_all(scratch);

  std::ofstream jsonl(out + "/distributed.jsonl", std::ios::app);
  std::printf("distributed suite: 2 ranks on 127.0.0.1, %d threads each, commit %s\n", threads, commit.c_str());
  std::printf("%-16s %12s %12s %12s  %s\n", "workload", "ember ms", "torch ms", "ratio", "(torch / ember: >1 Ember is faster)");
  for (const char* name : {"all_reduce_1K", "all_reduce_1M", "all_reduce_25M", "all_gather_25M", "broadcast_25M",
                           "barrier", "ddp_step_cnn", "compute_cnn", "allreduce_cnn", "ddp_step_resnet18",
                           "compute_resnet18", "allreduce_resnet18"}) {
    const auto e = ember.find(name);
    const auto p = peer.find(name);
    if (e == ember.end()) {  // filtered out, or its Ember side failed
      if (filter.empty()) std::printf("%-16s %12s %12s\n", name, "-", "-");
      continue;
    }
    if (p == peer.end()) {
      std::printf("%-16s %12.3f %12s\n", name, e->second.median_s * 1e3, "-");
      continue;
    }
    const double ratio = p->second.median_s / e->second.median_s;
    std::printf("%-16s %12.3f %12.3f %11.2fx\n", name, e->second.median_s * 1e3, p->second.median_s * 1e3, ratio);
    jsonl << "{\"suite\": \"distributed\", \"workload\": \"" << name << "\", \"commit\": \"" << commit
          << "\", \"threads\": " << threads << ", \"ember_s\": " << e->second.median_s
          << ", \"ember_min_s\": " << e->second.min_s << ", \"ember_reps\": " << e->second.reps
          << ", \"peer\": \"torch.distributed gloo\", \"peer_s\": " << p->second.median_s
          << ", \"peer_min_s\": " << p->second.min_s << ", \"peer_reps\": " << p->second.reps
          << ", \"ratio\": " << ratio << "}\n";
  }
  // DDP's overlap: a step against its parts timed alone. (compute + all_reduce)
  // / step > 1 means communication overlapped the backward pass.
  for (const char* model : {"cnn", "resnet18"}) {
    auto overlap = [&](const std::map<std::string, Timing>& side) -> double {
      const auto step = side.find(std::string("ddp_step_") + model);
      const auto compute = side.find(std::string("compute_") + model);
      const auto reduce = side.find(std::string("allreduce_") + model);
      if (step == side.end() || compute == side.end() || reduce == side.end()) return 0;
      return (compute->second.median_s + reduce->second.median_s) / step->second.median_s;
    };
    const double ours = overlap(ember), theirs = overlap(peer);
    if (ours == 0) continue;
    std::printf("%s DDP step: (compute + all_reduce) / step = %.2f (Ember), %s (torch)\n", model, ours,
                theirs == 0 ? "-" : std::to_string(theirs).substr(0, 4).c_str());
  }
  return 0;
}
