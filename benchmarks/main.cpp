// ember_bench <suite> [--filter SUBSTR] [--out DIR] [--threads N] [--target-s S] [--commit ID] [--list]
// Runs every workload of a suite with Ember and with its peers (libtorch, or
// what the workload names), prints a table and writes one JSON line per
// (workload, peer) to DIR/<suite>.jsonl.
#include "bench.h"  // first: EMBER_BENCH_LIBTORCH's check
#if EMBER_BENCH_LIBTORCH
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#endif

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "busy_core.h"
#include "external_peer.h"
#include "measure.h"
#include "report.h"

namespace {

struct Args {
  std::string suite;
  std::string filter;
  std::string out_dir = "bench-results";
  std::string commit;
  int threads = 2;
  double target_s = 0.4;
  bool list = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "%s\nusage: ember_bench <suite> [--filter SUBSTR] [--out DIR] [--threads N] "
               "[--target-s SECONDS] [--commit ID] [--list]\n",
               why);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--filter") a.filter = value();
    else if (arg == "--out") a.out_dir = value();
    else if (arg == "--commit") a.commit = value();
    else if (arg == "--threads") a.threads = std::stoi(value());
    else if (arg == "--target-s") a.target_s = std::stod(value());
    else if (arg == "--list") a.list = true;
    else if (!arg.empty() && arg[0] == '-') usage(("unknown option " + arg).c_str());
    else if (a.suite.empty()) a.suite = arg;
    else usage(("unexpected argument " + arg).c_str());
  }
  if (a.suite.empty()) usage("no suite given");
  if (a.threads < 1) usage("--threads must be at least 1");
  return a;
}

// The medians of one timing of a workload, per peer, for the slowdowns of a
// second timing under load.
struct Timed {
  bool ok = false;
  double ember_s = 0;
  double ember_alone_s = 0;  // back to back, for the external peers' rows
  std::map<std::string, double> peer_s;
};

// Times one workload (in-process peer interleaved, then external peers) and
// reports a row per peer. With `quiet` (a timing of the same case without
// load), the rows carry each side's slowdown against it.
Timed time_workload(const std::string& name, const ember_bench::Case& c, const ember_bench::TimingOptions& timing,
                    const Args& args, ember_bench::Report& report, const Timed* quiet) {
  Timed t;
  ember_bench::Measurement m;
  try {
    m = ember_bench::measure(c, timing);
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  if (!m.error.empty()) {
    report.failed(name, c.peer_name, m.error);
    return t;
  }
  t.ok = true;
  t.ember_s = m.ember_s;
  auto with_quiet = [&](ember_bench::Row& row, bool external) {
    if (quiet == nullptr) return;
    const auto it = quiet->peer_s.find(row.peer);
    if (it == quiet->peer_s.end()) return;
    row.quiet_ember_s = external ? quiet->ember_alone_s : quiet->ember_s;
    row.quiet_peer_s = it->second;
  };
  ember_bench::Row row =
      ember_bench::timed_row(name, c.peer_name, m.ember_s, m.ember_min_s, m.peer_s, m.peer_min_s, m.reps);
  row.bytes = c.bytes;
  row.units = c.units;
  row.unit_name = c.unit_name;
  if (c.ceiling) {
    row.ceiling = c.ceiling->name;
    row.ceiling_s = m.ceiling_s;
    row.ceiling_min_s = m.ceiling_min_s;
    row.ceiling_mismatch = m.ceiling_mismatch;
  }
  row.mismatch = m.mismatch;
  if (c.peer) {  // else: external peers only, rows below
    with_quiet(row, false);
    report.row(row);
    t.peer_s[c.peer_name] = m.peer_s;
  }
  // Peers in other processes run after the in-process timing (they cannot be
  // interleaved). Note [Back-to-back timing for external peers]: an external
  // peer runs its loop back to back, so its inputs stay in cache from one run
  // to the next; Ember's interleaved runs above alternate with libtorch's,
  // which evict them (a 1080p image and libtorch's float copy of it fill the
  // L3). Comparing the two measured a cache state, not the kernels: on an AMD
  // EPYC, Ember's resize 1080p->224 took 0.09 ms hot and 0.45 ms cold, and
  // OpenCV 0.09 ms hot and 0.51 ms cold, yet the row said 0.40x. So Ember's
  // side of these rows is timed back to back too, alone.
  ember_bench::Measurement alone = m;
  if (c.peer && !c.external_peers.empty()) {
    ember_bench::Case ember_only = c;
    ember_only.peer = nullptr;
    ember_only.ceiling = std::nullopt;
    try {
      alone = ember_bench::measure(ember_only, timing);
    } catch (const std::exception& e) {
      alone.error = e.what();
    }
    if (!alone.error.empty()) {
      for (const auto& peer : c.external_peers) report.failed(name, peer.name, alone.error);
      return t;
    }
  }
  t.ember_alone_s = alone.ember_s;
  for (const auto& peer : c.external_peers) {
    ember_bench::ExternalMeasurement x;
    try {
      x = ember_bench::run_external_peer(peer, c.ember(), args.target_s, args.threads, c.rtol, c.atol);
    } catch (const std::exception& e) {
      x.error = e.what();
    }
    if (!x.error.empty()) {
      report.failed(name, peer.name, x.error);
    } else if (!x.skipped.empty()) {
      report.skipped(name, peer.name, x.skipped);
    } else {
      ember_bench::Row ext =
          ember_bench::timed_row(name, peer.name, alone.ember_s, alone.ember_min_s, x.median_s, x.min_s, x.reps);
      ext.mismatch = x.mismatch;
      ext.unchecked = x.unchecked;
      with_quiet(ext, true);
      report.row(ext);
      t.peer_s[peer.name] = x.median_s;
    }
  }
  return t;
}

}  // namespace

// Note [Steady-state malloc for the peer]
// libtorch's CPU tensors come from glibc's malloc, whose mmap threshold starts
// at 128 KiB and rises (to 32 MiB) only after a large block has been freed.
// Until then every large tensor is a fresh mmap whose pages fault in on first
// touch: the ResNet-18 training step took libtorch 289 ms when it was the
// first workload of a run and 81 ms after the inference workloads (AMD EPYC
// VM, where page faults are expensive). Starting at the thresholds glibc
// settles on makes every peer row its steady state, whatever the filter.
static void settle_malloc_thresholds() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  settle_malloc_thresholds();
#if EMBER_BENCH_LIBTORCH
  // The peer's fastest documented inference path: no autograd bookkeeping.
  c10::InferenceMode inference_mode;
#endif
  ember::set_num_threads(args.threads);
#if EMBER_BENCH_LIBTORCH
  at::set_num_threads(args.threads);
  at::manual_seed(0);
#endif

  std::vector<const ember_bench::Workload*> selected;
  for (const auto& w : ember_bench::workloads())
    if (w.suite == args.suite && w.name.find(args.filter) != std::string::npos) selected.push_back(&w);
  if (args.list) {
    for (const auto* w : selected) std::printf("%s\n", w->name.c_str());
    return 0;
  }
  if (selected.empty()) usage(("no workload in suite '" + args.suite + "' matches").c_str());

  std::filesystem::create_directories(args.out_dir);
  const std::string jsonl_path = args.out_dir + "/" + args.suite + ".jsonl";
  std::ofstream jsonl(jsonl_path, std::ios::trunc);
  if (!jsonl) usage(("cannot write " + jsonl_path).c_str());

  const auto bw = ember_bench::measure_copy_bandwidth(size_t(256) << 20, args.threads);
  const std::string cpu = ember_bench::cpu_description();
  std::printf("suite %s, %d threads on %s; copy bandwidth over 256 MB: %.1f GB/s (plain stores), "
              "%.1f GB/s (memcpy)\n",
              args.suite.c_str(), args.threads, cpu.c_str(), bw.copy_gbs, bw.memcpy_gbs);

  ember_bench::Report report(jsonl, args.threads, args.commit, bw.copy_gbs);
  report.header();
  ember_bench::TimingOptions timing;
  timing.target_s = args.target_s;
  for (const auto* w : selected) {
    std::optional<ember_bench::Case> c;
    try {
      c = w->make();
    } catch (const ember_bench::SkipWorkload& e) {
      report.skipped(w->name, "", e.what());
      continue;
    } catch (const std::exception& e) {
      report.failed(w->name, "", e.what());
      continue;
    }
    const Timed quiet = time_workload(w->name, *c, timing, args, report, nullptr);
    if (c->under_load && quiet.ok) {
      // A fresh case: a training step's first result (the one checked) must
      // come from the same starting point on both sides again.
      c.reset();
      try {
        c = w->make();
      } catch (const std::exception& e) {
        report.failed(w->name + "@busy_core", "", e.what());
        continue;
      }
      ember_bench::BusyCore busy;
      time_workload(w->name + "@busy_core", *c, timing, args, report, &quiet);
    }
  }
  const int problems = report.summary();
  // How Ember's loops ran (quiet or shared cores: Note [Two ways to run a loop]).
  std::printf("%s", ember::parallel_info().c_str());
  // Measured again so that a reader sees whether other load moved the machine
  // during the run (the bandwidth column uses the first measurement).
  const auto bw_end = ember_bench::measure_copy_bandwidth(size_t(256) << 20, args.threads);
  std::printf("copy bandwidth after the run: %.1f GB/s (plain stores), %.1f GB/s (memcpy)\n",
              bw_end.copy_gbs, bw_end.memcpy_gbs);
  using ember_bench::json_string;
  using ember_bench::num;
  std::ofstream(args.out_dir + "/" + args.suite + ".machine.json", std::ios::trunc)
      << "{\"suite\": " << json_string(args.suite) << ", \"threads\": " << args.threads << ", \"cpu\": " << json_string(cpu)
      << ", \"copy_gbs\": " << num(bw.copy_gbs) << ", \"memcpy_gbs\": " << num(bw.memcpy_gbs)
      << ", \"copy_gbs_after\": " << num(bw_end.copy_gbs)
      << ", \"memcpy_gbs_after\": " << num(bw_end.memcpy_gbs)
      << (args.commit.empty() ? "" : ", \"commit\": " + json_string(args.commit)) << "}\n";
  std::printf("results: %s\n", jsonl_path.c_str());
  if (problems) std::printf("%d workload(s) failed or disagreed with their peer\n", problems);
  return problems ? 1 : 0;
}
