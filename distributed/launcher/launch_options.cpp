#include "launch_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <ember/core/error.h>

namespace ember::distributed::launcher {
namespace {

int parse_int(const std::string& flag, const std::string& text, int min_value) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  EMBER_CHECK(!text.empty() && *end == '\0' && errno == 0 && value >= min_value && value <= 1'000'000,
              "ember-run: ", flag, " must be an integer >= ", min_value, ", got '", text, "'");
  return static_cast<int>(value);
}

double parse_seconds(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  EMBER_CHECK(!text.empty() && *end == '\0' && std::isfinite(value) && value >= 0,
              "ember-run: ", flag, " must be a number of seconds >= 0, got '", text, "'");
  return value;
}

void parse_nnodes(const std::string& text, LaunchOptions& o) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    o.min_nodes = o.max_nodes = parse_int("--nnodes", text, 1);
  } else {
    o.min_nodes = parse_int("--nnodes (MIN)", text.substr(0, colon), 1);
    o.max_nodes = parse_int("--nnodes (MAX)", text.substr(colon + 1), 1);
  }
  EMBER_CHECK(o.min_nodes <= o.max_nodes, "ember-run: --nnodes ", text, ": MIN exceeds MAX");
}

void parse_rdzv_conf(const std::string& text, LaunchOptions& o) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const auto eq = item.find('=');
    EMBER_CHECK(eq != std::string::npos, "ember-run: --rdzv-conf wants key=value pairs, got '", item, "'");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "join_timeout") {
      o.join_timeout_s = parse_seconds("--rdzv-conf join_timeout", value);
    } else if (key == "last_call_timeout") {
      o.last_call_timeout_s = parse_seconds("--rdzv-conf last_call_timeout", value);
    } else {
      EMBER_CHECK(false, "ember-run: unknown --rdzv-conf key '", key, "' (join_timeout, last_call_timeout)");
    }
    start = comma + 1;
  }
}

}  // namespace

LaunchOptions parse_launch_options(const std::vector<std::string>& args) {
  LaunchOptions o;
  size_t k = 1;
  for (; k < args.size(); ++k) {
    std::string flag = args[k];
    if (flag == "--") {
      ++k;
      break;
    }
    if (flag.rfind("--", 0) != 0) break;  // the program
    std::string value;
    bool inline_value = false;
    if (const auto eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inline_value = true;
    }
    auto next = [&]() -> const std::string& {
      if (inline_value) return value;
      EMBER_CHECK(k + 1 < args.size(), "ember-run: ", flag, " needs a value");
      return args[++k];
    };
    if (flag == "--nproc-per-node" || flag == "--nproc_per_node") {
      o.nproc_per_node = parse_int(flag, next(), 1);
    } else if (flag == "--nnodes") {
      parse_nnodes(next(), o);
    } else if (flag == "--node-rank" || flag == "--node_rank") {
      o.node_rank = parse_int(flag, next(), 0);
    } else if (flag == "--rdzv-endpoint" || flag == "--rdzv_endpoint") {
      o.rdzv_endpoint = next();
      EMBER_CHECK(o.rdzv_endpoint.rfind(':') != std::string::npos,
                  "ember-run: --rdzv-endpoint wants host:port, got '", o.rdzv_endpoint, "'");
    } else if (flag == "--rdzv-id" || flag == "--rdzv_id") {
      o.rdzv_id = next();
      EMBER_CHECK(!o.rdzv_id.empty() && o.rdzv_id.find('/') == std::string::npos,
                  "ember-run: --rdzv-id must be non-empty without '/', got '", o.rdzv_id, "'");
    } else if (flag == "--rdzv-conf" || flag == "--rdzv_conf") {
      parse_rdzv_conf(next(), o);
    } else if (flag == "--local-addr" || flag == "--local_addr") {
      o.local_addr = next();
    } else if (flag == "--max-restarts" || flag == "--max_restarts") {
      o.max_restarts = parse_int(flag, next(), 0);
    } else if (flag == "--monitor-interval" || flag == "--monitor_interval") {
      o.monitor_interval_s = parse_seconds(flag, next());
      EMBER_CHECK(o.monitor_interval_s > 0, "ember-run: --monitor-interval must be > 0");
    } else if (flag == "--stop-timeout") {
      o.stop_timeout_s = parse_seconds(flag, next());
    } else if (flag == "--log-dir" || flag == "--log_dir") {
      o.log_dir = next();
    } else if (flag == "--tail-lines") {
      o.tail_lines = parse_int(flag, next(), 0);
    } else {
      EMBER_CHECK(false, "ember-run: unknown flag ", flag, " (ember-run --help lists them)");
    }
  }
  for (; k < args.size(); ++k) o.program.push_back(args[k]);
  EMBER_CHECK(!o.program.empty(), "ember-run: no program to run (ember-run [flags] program args...)");
  EMBER_CHECK(o.max_nodes == 1 || !o.rdzv_endpoint.empty(),
              "ember-run: --nnodes ", o.min_nodes, ":", o.max_nodes, " needs --rdzv-endpoint host:port");
  return o;
}

std::string launch_usage() {
  return R"(usage: ember-run [flags] program [args...]
Starts --nproc-per-node copies of program on this node, each with RANK,
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE,
MASTER_ADDR, MASTER_PORT, RESTART_COUNT and TORCHELASTIC_RUN_ID set, restarts
the whole group when a worker fails, and prints who failed first.
  --nproc-per-node N        workers on this node (1)
  --nnodes N | MIN:MAX      nodes in the group (1)
  --node-rank K             this node's GROUP_RANK (default: order of joining)
  --rdzv-endpoint HOST:PORT the rendezvous TCPStore (needed with several nodes)
  --rdzv-id ID              the job's id in that store (none)
  --rdzv-conf join_timeout=S,last_call_timeout=S   (600, 30)
  --local-addr ADDR         this node's address for the others
  --max-restarts R          restarts of the group, shared by all nodes (0)
  --monitor-interval S      how often workers are checked (0.1)
  --stop-timeout S          SIGTERM to SIGKILL grace when stopping workers (5)
  --log-dir DIR             per-rank logs (a new /tmp/ember-run-ID-XXXXXX)
  --tail-lines N            lines of the failed rank's log in the summary (10)
Exit status: 0 when every worker of the last round succeeded, 1 when the
restart budget ran out, 128+signal when interrupted, 2 for bad flags.
)";
}

}  // namespace ember::distributed::launcher
