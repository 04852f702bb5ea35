// ember_difffuzz: a differential fuzzer of Ember against libtorch, in one
// process. Seeded cases of random ops, dtypes, shapes, layouts and values;
// every case replays alone from its seed and index. See benchmarks/README.md.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "bridge.h"
#include "known_differences.h"
#include "runner.h"

namespace {

using namespace difffuzz;

bool g_full_values = false;  // --full

struct Options {
  uint64_t seed = 1;
  int64_t cases = -1;
  double seconds = -1;
  int threads = 1;
  std::string ops;
  bool replay = false;
  uint64_t replay_index = 0;
  int max_report = 3;
  bool show_known = false;
  bool show_layout = false;
  bool list = false;
  double case_timeout = 120;
  Limits limits;
};

void usage() {
  std::cout <<
      "usage: ember_difffuzz [--seed S] [--cases N] [--seconds T] [--max-numel M] [--threads K]\n"
      "                      [--op NAME[,NAME...]] [--replay SEED:INDEX] [--max-report R]\n"
      "                      [--show-known] [--show-layout] [--case-timeout T] [--list] [--full]\n"
      "  --seed S         run seed (default 1); case i of a run is generated from (S, i) alone\n"
      "  --cases N        stop after N cases (default 1000 when --seconds is not given)\n"
      "  --seconds T      stop after T seconds\n"
      "  --max-numel M    the largest input numel (default 512)\n"
      "  --threads K      intra-op threads of both libraries (default 1)\n"
      "  --op LIST        ops or groups (elementwise, reduce, scan, sort, shape, index, linalg, nn)\n"
      "                   the cases draw from (default: all)\n"
      "  --replay S:I     run case I of seed S alone and print its inputs and both outputs\n"
      "  --full           with --replay: print every input value (default: the first 64)\n"
      "                   (give the same --max-numel and --op as the run that found it)\n"
      "  --max-report R   new mismatches printed per op (default 3)\n"
      "  --show-known     also print a replay line for each op's first known difference\n"
      "  --show-layout    also print each op's first output-stride difference (the layout column)\n"
      "  --case-timeout T abort with the case's replay line when one case runs T seconds of wall time\n"
      "                   (default 120; raise it on a loaded machine, or under nice)\n"
      "  --list           list the ops\n"
      "Exit status: 0 when every mismatch is a known difference, 1 otherwise, 2 on bad usage.\n";
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--cases") o.cases = std::stoll(value());
    else if (a == "--seconds") o.seconds = std::stod(value());
    else if (a == "--max-numel") o.limits.max_numel = std::stoll(value());
    else if (a == "--threads") o.threads = std::stoi(value());
    else if (a == "--op") o.ops = value();
    else if (a == "--max-report") o.max_report = std::stoi(value());
    else if (a == "--case-timeout") o.case_timeout = std::stod(value());
    else if (a == "--show-known") o.show_known = true;
    else if (a == "--show-layout") o.show_layout = true;
    else if (a == "--list") o.list = true;
    else if (a == "--full") g_full_values = true;
    else if (a == "--replay") {
      const std::string v = value();
      const size_t colon = v.find(':');
      if (colon == std::string::npos) throw std::runtime_error("--replay takes SEED:INDEX");
      o.replay = true;
      o.seed = std::stoull(v.substr(0, colon));
      o.replay_index = std::stoull(v.substr(colon + 1));
    } else if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else {
      throw std::runtime_error("unknown argument " + a);
    }
  }
  if (o.threads < 1 || o.limits.max_numel < 1) throw std::runtime_error("--threads and --max-numel must be positive");
  return true;
}

std::vector<size_t> select_ops(const std::string& list) {
  const std::vector<OpDef>& table = op_table();
  std::vector<size_t> out;
  if (list.empty()) {
    for (size_t i = 0; i < table.size(); ++i) out.push_back(i);
    return out;
  }
  std::stringstream ss(list);
  std::string name;
  std::set<size_t> chosen;
  while (std::getline(ss, name, ',')) {
    bool found = false;
    for (size_t i = 0; i < table.size(); ++i)
      if (table[i].name == name || table[i].group == name) {
        chosen.insert(i);
        found = true;
      }
    if (!found) throw std::runtime_error("--op: no op or group named '" + name + "' (--list lists them)");
  }
  return {chosen.begin(), chosen.end()};
}

std::string replay_line(const Options& o, uint64_t index) {
  std::ostringstream s;
  s << "ember_difffuzz --replay " << o.seed << ':' << index << " --max-numel " << o.limits.max_numel << " --threads "
    << o.threads;
  if (!o.ops.empty()) s << " --op " << o.ops;
  return s.str();
}

// ---- crash and hang reports: the case that was running, as a replay line ----
char g_current[4096];
std::atomic<int64_t> g_case_started_ms{0};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void on_crash(int sig) {
  const char head[] = "\nember_difffuzz: crashed in case: ";
  [[maybe_unused]] ssize_t n = write(2, head, sizeof(head) - 1);
  n = write(2, g_current, strlen(g_current));
  n = write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void set_current(const Options& o, uint64_t index) {
  const std::string line = replay_line(o, index);
  std::snprintf(g_current, sizeof(g_current), "%s", line.c_str());
  g_case_started_ms = now_ms();
}

// Adds the generated case's description to the crash report's line.
void describe_current(const Case& c) {
  const size_t n = strlen(g_current);
  std::snprintf(g_current + n, sizeof(g_current) - n, "\n  %s", c.str().c_str());
}

void start_watchdog(double timeout_s) {
  std::thread([timeout_s] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      const int64_t started = g_case_started_ms.load();
      if (started && now_ms() - started > static_cast<int64_t>(timeout_s * 1000)) {
        const char head[] = "\nember_difffuzz: a case ran past --case-timeout: ";
        [[maybe_unused]] ssize_t n = write(2, head, sizeof(head) - 1);
        n = write(2, g_current, strlen(g_current));
        n = write(2, "\n", 1);
        _exit(3);
      }
    }
  }).detach();
}

// Up to 64 values (all with --full) in row-major order (re, im pairs for complex), and how many are not finite.
std::string values_str(const at::Tensor& t) {
  at::Tensor flat = (t.is_complex() ? at::view_as_real(t.detach().resolve_conj()) : t.detach()).reshape({-1}).to(at::kDouble);
  std::ostringstream s;
  s.precision(9);
  s << '[';
  const int64_t n = g_full_values ? flat.numel() : std::min<int64_t>(flat.numel(), 64);
  flat = flat.contiguous();
  const double* p = flat.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i) s << (i ? ", " : "") << p[i];
  if (flat.numel() > n) s << ", ... (" << flat.numel() << " in all)";
  s << ']';
  const int64_t nonfinite = (~flat.isfinite()).sum().item<int64_t>();
  if (nonfinite) s << " (" << nonfinite << " not finite)";
  return s.str();
}

void print_mismatch(const Mismatch& m) {
  std::cout << "    [" << m.kind << (m.output >= 0 ? " #" + std::to_string(m.output) : "") << "] " << m.detail;
  if (!m.known.empty()) std::cout << "  (known: " << m.known << ")";
  std::cout << "\n";
}

int replay(const Options& o, const RunConfig& cfg) {
  const CaseResult r = run_case(cfg, o.replay_index);
  std::cout << "case " << o.seed << ':' << o.replay_index << ": " << r.c.str() << "\n";
  std::cout << "  tol_scale " << r.c.tol_scale << "\n";
  for (size_t i = 0; i < r.c.tensors.size(); ++i) {
    const at::Tensor t = make_torch_tensor(r.c.tensors[i]);
    std::cout << "  input " << i << ": " << r.c.tensors[i].str() << " values=" << values_str(t) << "\n";
    if (r.c.tensors[i].layout != "contiguous")  // the whole storage, to rebuild the view elsewhere
      std::cout << "    storage=" << values_str(t.detach().as_strided({r.c.tensors[i].storage_numel()}, {1}, 0)) << "\n";
  }
  if (r.ember_raised) std::cout << "  ember raised: " << r.ember_error << "\n";
  if (r.torch_raised) std::cout << "  torch raised: " << r.torch_error << "\n";
  for (size_t i = 0; i < r.ember_outputs.size(); ++i) std::cout << "  ember output " << i << ": " << r.ember_outputs[i] << "\n";
  for (size_t i = 0; i < r.torch_outputs.size(); ++i) std::cout << "  torch output " << i << ": " << r.torch_outputs[i] << "\n";
  for (size_t i = 0; i < r.ember_grads.size(); ++i) std::cout << "  ember gradient " << i << ": " << r.ember_grads[i] << "\n";
  for (size_t i = 0; i < r.torch_grads.size(); ++i) std::cout << "  torch gradient " << i << ": " << r.torch_grads[i] << "\n";
  if (r.torch_skipped) std::cout << "  libtorch would crash on this case (torch_hazard): only Ember ran\n";
  if (r.ember_extension) std::cout << "  libtorch does not implement this dtype; Ember does (not compared)\n";
  std::printf("  seconds: ember %.4f (backward %.4f), libtorch %.4f (backward %.4f)\n", r.seconds[0], r.seconds[2],
              r.seconds[1], r.seconds[3]);
  if (r.mismatches.empty() && r.layout.empty()) std::cout << "  agree\n";
  for (const Mismatch& m : r.mismatches) print_mismatch(m);
  for (const Mismatch& m : r.layout) print_mismatch(m);
  return r.new_mismatch() ? 1 : 0;
}

struct OpStats {
  int64_t cases = 0, agree = 0, both_raise = 0, known = 0, fail = 0, layout = 0, extension = 0;
  std::vector<std::string> reports;
  std::string first_known, first_layout;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    parse(argc, argv, o);
  } catch (const std::exception& e) {
    std::cerr << "ember_difffuzz: " << e.what() << "\n";
    usage();
    return 2;
  }
  if (o.list) {
    for (const OpDef& op : op_table())
      std::cout << op.group << ' ' << op.name << ((op.flags & kGrad) ? " (grad)" : "") << "\n";
    std::cout << op_table().size() << " ops\n";
    return 0;
  }
  RunConfig cfg;
  cfg.seed = o.seed;
  cfg.limits = o.limits;
  try {
    cfg.ops = select_ops(o.ops);
  } catch (const std::exception& e) {
    std::cerr << "ember_difffuzz: " << e.what() << "\n";
    return 2;
  }
  silence_torch_warnings();
  set_threads(o.threads);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, on_crash);
  start_watchdog(o.case_timeout);
  on_case_generated = describe_current;

  if (o.replay) {
    cfg.keep_outputs = true;
    set_current(o, o.replay_index);
    return replay(o, cfg);
  }
  if (o.cases < 0 && o.seconds < 0) o.cases = 1000;

  std::map<std::string, OpStats> stats;
  std::map<std::string, int64_t> known_seen;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  uint64_t index = 0;
  int64_t failures = 0;
  for (; (o.cases < 0 || static_cast<int64_t>(index) < o.cases) && (o.seconds < 0 || elapsed() < o.seconds); ++index) {
    set_current(o, index);
    const CaseResult r = run_case(cfg, index);
    OpStats& s = stats[r.c.op];
    ++s.cases;
    if (!r.layout.empty()) {
      ++s.layout;
      if (s.first_layout.empty())
        s.first_layout = r.c.str() + "\n    " + r.layout[0].detail +
                         (r.layout[0].known.empty() ? "" : "  (known: " + r.layout[0].known + ")") + "\n    replay: " +
                         replay_line(o, index);
    }
    for (const Mismatch& m : r.mismatches)
      if (!m.known.empty()) ++known_seen[m.known];
    for (const Mismatch& m : r.layout)
      if (!m.known.empty()) ++known_seen[m.known];
    for (size_t i = 0; i < r.ember_grads.size(); ++i) std::cout << "  ember gradient " << i << ": " << r.ember_grads[i] << "\n";
  for (size_t i = 0; i < r.torch_grads.size(); ++i) std::cout << "  torch gradient " << i << ": " << r.torch_grads[i] << "\n";
  if (r.ember_extension) {
      ++s.extension;
    } else if (r.new_mismatch()) {
      ++s.fail;
      ++failures;
      if (static_cast<int>(s.reports.size()) < o.max_report) {
        std::ostringstream rep;
        rep << "  " << r.c.str() << "\n";
        if (r.ember_raised) rep << "    ember raised: " << r.ember_error << "\n";
        if (r.torch_raised) rep << "    torch raised: " << r.torch_error << "\n";
        for (const Mismatch& m : r.mismatches)
          if (m.known.empty())
            rep << "    [" << m.kind << (m.output >= 0 ? " #" + std::to_string(m.output) : "") << "] " << m.detail << "\n";
        rep << "    replay: " << replay_line(o, index) << "\n";
        s.reports.push_back(rep.str());
      }
    } else if (r.known_only()) {
      ++s.known;
      if (s.first_known.empty()) s.first_known = replay_line(o, index) + "  (" + r.mismatches[0].known + ")";
    } else if (r.ember_raised && r.torch_raised) {
      ++s.both_raise;
    } else {
      ++s.agree;
    }
  }
  g_case_started_ms = 0;

  std::printf("ember_difffuzz: seed %llu, %llu cases in %.1f s, max numel %lld, %d thread%s, %zu ops\n",
              static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(index), elapsed(),
              static_cast<long long>(o.limits.max_numel), o.threads, o.threads == 1 ? "" : "s", cfg.ops.size());
  std::printf("%-34s %7s %7s %7s %7s %7s %7s %7s\n", "op", "cases", "agree", "raise2", "known", "NEW", "layout",
              "ext");
  for (const auto& [name, s] : stats)
    std::printf("%-34s %7lld %7lld %7lld %7lld %7lld %7lld %7lld\n", name.c_str(), static_cast<long long>(s.cases),
                static_cast<long long>(s.agree), static_cast<long long>(s.both_raise), static_cast<long long>(s.known),
                static_cast<long long>(s.fail), static_cast<long long>(s.layout), static_cast<long long>(s.extension));
  std::printf("(raise2: both raised; known: only known differences; layout: output strides differ, a warning;\n"
              " ext: not compared: libtorch does not implement the dtype (Ember does), or would crash)\n");
  if (!known_seen.empty()) {
    std::printf("\nknown differences seen (mismatches):\n");
    for (const KnownDifference& k : known_differences()) {
      auto it = known_seen.find(k.id);
      if (it != known_seen.end())
        std::printf("  %-24s %6lld  %s%s\n", k.id.c_str(), static_cast<long long>(it->second), k.reason.c_str(),
                    k.deliberate ? " [deliberate]" : "");
    }
  }
  {
    std::string unseen;
    for (const KnownDifference& k : known_differences())
      if (!known_seen.count(k.id)) unseen += " " + k.id;
    if (!unseen.empty())
      std::printf("known differences that matched nothing in this run (remove those whose fix landed):%s\n",
                  unseen.c_str());
  }
  if (o.show_layout) {
    std::printf("\nfirst output-stride difference per op (ember vs torch):\n");
    for (const auto& [name, s] : stats)
      if (!s.first_layout.empty()) std::printf("  %s\n", s.first_layout.c_str());
  }
  if (o.show_known) {
    std::printf("\nfirst known difference per op:\n");
    for (const auto& [name, s] : stats)
      if (!s.first_known.empty()) std::printf("  %s: %s\n", name.c_str(), s.first_known.c_str());
  }
  if (failures) {
    std::printf("\nNEW MISMATCHES (%lld cases; not in the known-differences table):\n", static_cast<long long>(failures));
    for (const auto& [name, s] : stats)
      for (const std::string& rep : s.reports) std::printf("%s", rep.c_str());
    return 1;
  }
  std::printf("\nno new mismatches\n");
  return 0;
}
