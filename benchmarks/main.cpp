// ember_bench <suite> [--filter SUBSTR] [--out DIR] [--threads N] [--target-s S] [--commit ID] [--list]
// Runs every workload of a suite with Ember and with libtorch, prints a table
// and writes one JSON line per workload to DIR/<suite>.jsonl.
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "bench.h"
#include "measure.h"

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

std::string json_string(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    r += c;
  }
  return r + "\"";
}

std::string num(double x) {
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  // The peer's fastest documented inference path: no autograd bookkeeping.
  c10::InferenceMode inference_mode;
  ember::set_num_threads(args.threads);
  at::set_num_threads(args.threads);
  at::manual_seed(0);

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
  std::printf("suite %s, %d threads; copy bandwidth over 256 MB: %.1f GB/s (plain stores), "
              "%.1f GB/s (memcpy)\n",
              args.suite.c_str(), args.threads, bw.copy_gbs, bw.memcpy_gbs);

  // speedup: ratio of the medians; "of min": ratio of the fastest runs, a
  // cross-check that is less sensitive to other load on the machine.
  std::printf("\n%-28s %10s %12s %8s %7s %15s  %s\n", "workload", "ember ms", "libtorch ms", "speedup",
              "of min", "ember GB/s (%)", "check");
  std::printf("%s\n", std::string(100, '-').c_str());
  ember_bench::TimingOptions timing;
  timing.target_s = args.target_s;
  double log_speedup_sum = 0;
  int timed = 0, problems = 0;
  for (const auto* w : selected) {
    ember_bench::Measurement m;
    double bytes = 0;
    int64_t units = 0;
    std::string unit_name;
    try {
      const ember_bench::Case c = w->make();
      bytes = c.bytes;
      units = c.units;
      unit_name = c.unit_name;
      m = ember_bench::measure(c, timing);
    } catch (const std::exception& e) {
      m.error = e.what();
    }
    if (!m.error.empty()) {
      ++problems;
      std::printf("%-28s ERROR: %s\n", w->name.c_str(), m.error.c_str());
      jsonl << "{\"workload\": " << json_string(w->name) << ", \"error\": " << json_string(m.error)
            << "}\n" << std::flush;
      continue;
    }
    const double speedup = m.peer_s / m.ember_s;
    log_speedup_sum += std::log(speedup);
    ++timed;
    problems += !m.mismatch.empty();
    std::string bw_col;
    std::ostringstream line;
    line << "{\"workload\": " << json_string(w->name) << ", \"ember_s\": " << num(m.ember_s)
         << ", \"peer\": \"libtorch\", \"peer_s\": " << num(m.peer_s)
         << ", \"speedup\": " << num(speedup) << ", \"ember_min_s\": " << num(m.ember_min_s)
         << ", \"peer_min_s\": " << num(m.peer_min_s) << ", \"reps\": " << m.reps
         << ", \"threads\": " << args.threads << ", \"ok\": " << (m.mismatch.empty() ? "true" : "false");
    if (bytes > 0) {
      const double gbs = bytes / m.ember_s / 1e9;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f (%3.0f%%)", gbs, 100 * gbs / bw.copy_gbs);
      bw_col = buf;
      line << ", \"ember_gbs\": " << num(gbs) << ", \"peer_gbs\": " << num(bytes / m.peer_s / 1e9)
           << ", \"copy_gbs\": " << num(bw.copy_gbs) << ", \"bw_fraction\": " << num(gbs / bw.copy_gbs);
    }
    if (units > 0) {
      const double ours = m.ember_s / static_cast<double>(units) * 1e6, theirs = m.peer_s / static_cast<double>(units) * 1e6;
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.2f us/%s", ours, unit_name.c_str());
      bw_col = buf;
      line << ", \"ember_us_per_" << unit_name << "\": " << num(ours) << ", \"peer_us_per_" << unit_name
           << "\": " << num(theirs);
    }
    if (!m.mismatch.empty()) line << ", \"mismatch\": " << json_string(m.mismatch);
    if (!args.commit.empty()) line << ", \"commit\": " << json_string(args.commit);
    jsonl << line.str() << "}\n" << std::flush;
    std::printf("%-28s %10.3f %12.3f %7.2fx %6.2fx %15s  %s\n", w->name.c_str(), m.ember_s * 1e3,
                m.peer_s * 1e3, speedup, m.peer_min_s / m.ember_min_s, bw_col.c_str(),
                m.mismatch.empty() ? "ok" : ("MISMATCH " + m.mismatch).c_str());
    std::fflush(stdout);
  }
  std::printf("%s\n", std::string(100, '-').c_str());
  if (timed)
    std::printf("geometric mean speedup (libtorch/ember) over %d workloads: %.2fx\n", timed,
                std::exp(log_speedup_sum / timed));
  // Measured again so that a reader sees whether other load moved the machine
  // during the run (the bandwidth column uses the first measurement).
  const auto bw_end = ember_bench::measure_copy_bandwidth(size_t(256) << 20, args.threads);
  std::printf("copy bandwidth after the run: %.1f GB/s (plain stores), %.1f GB/s (memcpy)\n",
              bw_end.copy_gbs, bw_end.memcpy_gbs);
  std::ofstream(args.out_dir + "/" + args.suite + ".machine.json", std::ios::trunc)
      << "{\"suite\": " << json_string(args.suite) << ", \"threads\": " << args.threads
      << ", \"copy_gbs\": " << num(bw.copy_gbs) << ", \"memcpy_gbs\": " << num(bw.memcpy_gbs)
      << ", \"copy_gbs_after\": " << num(bw_end.copy_gbs)
      << ", \"memcpy_gbs_after\": " << num(bw_end.memcpy_gbs)
      << (args.commit.empty() ? "" : ", \"commit\": " + json_string(args.commit)) << "}\n";
  std::printf("results: %s\n", jsonl_path.c_str());
  if (problems) std::printf("%d workload(s) failed or disagreed with libtorch\n", problems);
  return problems ? 1 : 0;
}
