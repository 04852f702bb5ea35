// Table rows and JSON lines (see report.h and README.md, "Output").
#include "report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace ember_bench {

namespace {
constexpr int kRuleWidth = 136;
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

Row timed_row(std::string workload, std::string peer, double ember_s, double ember_min_s, double peer_s,
              double peer_min_s, int reps) {
  Row r;
  r.workload = std::move(workload);
  r.peer = std::move(peer);
  r.ember_s = ember_s;
  r.ember_min_s = ember_min_s;
  r.peer_s = peer_s;
  r.peer_min_s = peer_min_s;
  r.reps = reps;
  return r;
}

Report::Report(std::ofstream& jsonl, int threads, std::string commit, double copy_gbs)
    : jsonl_(jsonl), threads_(threads), commit_(std::move(commit)), copy_gbs_(copy_gbs) {}

void Report::header() const {
  // speedup: ratio of the medians (peer / ember, > 1 means Ember is faster);
  // "of min": ratio of the fastest runs, a cross-check that is less sensitive
  // to other load on the machine. ceiling: a reference library's ms and its
  // ratio to Ember (ceiling / ember, 1 means Ember reaches it).
  std::printf("\n%-28s %-13s %10s %10s %8s %7s %15s %22s  %s\n", "workload", "peer", "ember ms", "peer ms",
              "speedup", "of min", "ember GB/s (%)", "ceiling ms (ratio)", "check");
  std::printf("%s\n", std::string(kRuleWidth, '-').c_str());
}

void Report::row(const Row& r) {
  const double speedup = r.peer_s / r.ember_s;
  // Rows timed under load get a geometric mean of their own.
  speedups_[r.quiet_ember_s > 0 ? r.peer + ", under load" : r.peer].push_back(speedup);
  problems_ += !r.mismatch.empty() + !r.ceiling_mismatch.empty();
  std::ostringstream line;
  line << "{\"workload\": " << json_string(r.workload) << ", \"ember_s\": " << num(r.ember_s)
       << ", \"peer\": " << json_string(r.peer) << ", \"peer_s\": " << num(r.peer_s)
       << ", \"speedup\": " << num(speedup) << ", \"ember_min_s\": " << num(r.ember_min_s)
       << ", \"peer_min_s\": " << num(r.peer_min_s) << ", \"reps\": " << r.reps << ", \"threads\": " << threads_
       << ", \"ok\": " << (r.mismatch.empty() && r.ceiling_mismatch.empty() ? "true" : "false");
  std::string extra_col, ceiling_col;
  if (r.bytes > 0) {
    const double gbs = r.bytes / r.ember_s / 1e9;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f (%3.0f%%)", gbs, 100 * gbs / copy_gbs_);
    extra_col = buf;
    line << ", \"ember_gbs\": " << num(gbs) << ", \"peer_gbs\": " << num(r.bytes / r.peer_s / 1e9)
         << ", \"copy_gbs\": " << num(copy_gbs_) << ", \"bw_fraction\": " << num(gbs / copy_gbs_);
  }
  if (r.units > 0) {
    const double ours = r.ember_s / static_cast<double>(r.units) * 1e6;
    const double theirs = r.peer_s / static_cast<double>(r.units) * 1e6;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f us/%s", ours, r.unit_name.c_str());
    extra_col = buf;
    line << ", \"ember_us_per_" << r.unit_name << "\": " << num(ours) << ", \"peer_us_per_" << r.unit_name
         << "\": " << num(theirs);
  }
  if (!r.ceiling.empty()) {
    const double ratio = r.ceiling_s / r.ember_s;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %.3f (%.2fx)", r.ceiling.c_str(), r.ceiling_s * 1e3, ratio);
    ceiling_col = buf;
    line << ", \"ceiling\": " << json_string(r.ceiling) << ", \"" << r.ceiling << "_s\": " << num(r.ceiling_s)
         << ", \"" << r.ceiling << "_min_s\": " << num(r.ceiling_min_s) << ", \"ratio_to_" << r.ceiling
         << "\": " << num(ratio);
    if (!r.ceiling_mismatch.empty()) line << ", \"ceiling_mismatch\": " << json_string(r.ceiling_mismatch);
  }
  if (r.quiet_ember_s > 0 && r.quiet_peer_s > 0) {
    const double ours = r.ember_s / r.quiet_ember_s, theirs = r.peer_s / r.quiet_peer_s;
    char buf[64];
    std::snprintf(buf, sizeof buf, "slowdown %.2fx (peer %.2fx)", ours, theirs);
    extra_col = buf;
    line << ", \"quiet_ember_s\": " << num(r.quiet_ember_s) << ", \"quiet_peer_s\": " << num(r.quiet_peer_s)
         << ", \"ember_slowdown\": " << num(ours) << ", \"peer_slowdown\": " << num(theirs);
  }
  if (!r.mismatch.empty()) line << ", \"mismatch\": " << json_string(r.mismatch);
  if (!r.unchecked.empty()) line << ", \"unchecked\": " << json_string(r.unchecked);
  if (!commit_.empty()) line << ", \"commit\": " << json_string(commit_);
  jsonl_ << line.str() << "}\n" << std::flush;

  std::string check = !r.mismatch.empty() ? "MISMATCH " + r.mismatch : !r.unchecked.empty() ? "unchecked" : "ok";
  if (!r.ceiling_mismatch.empty()) check += ", ceiling MISMATCH " + r.ceiling_mismatch;
  std::printf("%-28s %-13s %10.3f %10.3f %7.2fx %6.2fx %15s %22s  %s\n", r.workload.c_str(), r.peer.c_str(),
              r.ember_s * 1e3, r.peer_s * 1e3, speedup, r.peer_min_s / r.ember_min_s, extra_col.c_str(),
              ceiling_col.c_str(), check.c_str());
  std::fflush(stdout);
}

void Report::failed(const std::string& workload, const std::string& peer, const std::string& error) {
  ++problems_;
  std::printf("%-28s %-13s ERROR: %s\n", workload.c_str(), peer.c_str(), error.c_str());
  jsonl_ << "{\"workload\": " << json_string(workload) << ", \"peer\": " << json_string(peer)
         << ", \"error\": " << json_string(error) << "}\n" << std::flush;
}

void Report::skipped(const std::string& workload, const std::string& peer, const std::string& why) {
  std::printf("%-28s %-13s skipped: %s\n", workload.c_str(), peer.c_str(), why.c_str());
  jsonl_ << "{\"workload\": " << json_string(workload) << ", \"peer\": " << json_string(peer)
         << ", \"skipped\": " << json_string(why) << "}\n" << std::flush;
}

int Report::summary() const {
  std::printf("%s\n", std::string(kRuleWidth, '-').c_str());
  for (const auto& [peer, speedups] : speedups_) {
    double log_sum = 0;
    for (double s : speedups) log_sum += std::log(s);
    std::printf("geometric mean speedup (%s/ember) over %zu workloads: %.2fx\n", peer.c_str(), speedups.size(),
                std::exp(log_sum / static_cast<double>(speedups.size())));
  }
  return problems_;
}

}  // namespace ember_bench
