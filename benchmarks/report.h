#pragma once
// The run's report: one table row on stdout and one JSON line in
// <suite>.jsonl per (workload, peer), and the summary.
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace ember_bench {

// One (workload, peer) result; the optional parts are empty / 0 when absent.
struct Row {
  std::string workload;
  std::string peer;
  double ember_s = 0, ember_min_s = 0;  // median and fastest run
  double peer_s = 0, peer_min_s = 0;
  int reps = 0;                         // the peer's runs
  double bytes = 0;                     // streamed bytes per run (bandwidth columns)
  int64_t units = 0;                    // repeated units per run (time-per-unit fields)
  std::string unit_name;
  std::string ceiling;                  // a ceiling's name, with its times
  double ceiling_s = 0, ceiling_min_s = 0;
  std::string ceiling_mismatch;
  std::string mismatch;                 // the peer's result differs from Ember's
  std::string unchecked;                // why the peer's result is not compared (another algorithm)
  // For a row timed under load: each side's quiet median, for the slowdowns.
  double quiet_ember_s = 0, quiet_peer_s = 0;
};

// A Row with its times; the optional parts empty.
Row timed_row(std::string workload, std::string peer, double ember_s, double ember_min_s, double peer_s,
              double peer_min_s, int reps);

class Report {
 public:
  Report(std::ofstream& jsonl, int threads, std::string commit, double copy_gbs);

  void header() const;
  void row(const Row& r);
  // A workload or peer that failed (`error`) or cannot run here (`skipped`).
  void failed(const std::string& workload, const std::string& peer, const std::string& error);
  void skipped(const std::string& workload, const std::string& peer, const std::string& why);
  // The geometric mean speedup per peer; returns the number of failures and
  // mismatches.
  int summary() const;

 private:
  std::ofstream& jsonl_;
  int threads_;
  std::string commit_;
  double copy_gbs_;
  std::map<std::string, std::vector<double>> speedups_;  // per peer, in run order
  int problems_ = 0;
};

std::string json_string(const std::string& s);
std::string num(double x);

}  // namespace ember_bench
