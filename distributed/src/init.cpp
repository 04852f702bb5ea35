#include <ember/distributed/init.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>

#include <ember/core/error.h>
#include <ember/distributed/file_store.h>
#include <ember/distributed/prefix_store.h>
#include <ember/distributed/process_group_gloo.h>
#include <ember/distributed/tcp_store.h>

namespace ember::distributed {

namespace {

std::mutex default_group_mutex;
std::shared_ptr<ProcessGroup> default_group;
// What new_group needs of the default group: its store (unprefixed), its
// timeout, and how many groups new_group made (each its store prefix).
std::shared_ptr<Store> world_store;
std::chrono::milliseconds world_timeout{0};
int64_t groups_made = 0;
std::string world_backend;  // "gloo" or "nccl": new_group makes groups of it

std::string lower(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

// Backends other libraries registered (register_backend).
std::mutex backends_mutex;
std::map<std::string, ProcessGroupFactory>& backends() {
  static std::map<std::string, ProcessGroupFactory> registry;
  return registry;
}

ProcessGroupFactory registered_backend(const std::string& name) {
  std::lock_guard<std::mutex> lock(backends_mutex);
  auto it = backends().find(name);
  return it == backends().end() ? nullptr : it->second;
}

// A group of backend ("gloo" or a registered one, checked by the caller).
std::shared_ptr<ProcessGroup> make_group(const std::string& backend, std::shared_ptr<Store> store, int64_t rank,
                                         int64_t size, std::chrono::milliseconds timeout) {
  if (backend != "gloo") {
    ProcessGroupFactory factory = registered_backend(backend);
    EMBER_CHECK(factory != nullptr, "init_process_group: backend '", backend, "' is not registered");
    return factory(std::move(store), rank, size, timeout);
  }
  return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, ProcessGroupGlooOptions{.timeout = timeout});
}

std::string env_or_fail(const char* name, const char* why) {
  const char* value = std::getenv(name);
  EMBER_CHECK(value && *value, "init_process_group: environment variable ", name, " expected, but not set (", why,
              ")");
  return value;
}

int64_t parse_int(const std::string& text, const char* what) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  EMBER_CHECK(!text.empty() && errno == 0 && *end == '\0', "init_process_group: ", what, " is not an integer: '",
              text, "'");
  return v;
}

uint16_t parse_port(const std::string& text, const std::string& where) {
  const int64_t port = parse_int(text, "the port");
  EMBER_CHECK(port > 0 && port < 65536, "init_process_group: port ", port, " of ", where, " is outside [1, 65535]");
  return static_cast<uint16_t>(port);
}

// "host:port" or "[v6]:port".
std::pair<std::string, uint16_t> split_host_port(const std::string& text, const std::string& init_method) {
  const auto colon = text.rfind(':');
  EMBER_CHECK(colon != std::string::npos && colon > 0, "init_process_group: ", init_method,
              " has no host:port");
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, parse_port(text.substr(colon + 1), init_method)};
}

std::shared_ptr<Store> tcp_store(const std::string& host, uint16_t port, int64_t rank, int64_t world_size,
                                 std::chrono::milliseconds timeout) {
  return std::make_shared<TCPStore>(host, TCPStoreOptions{.port = port, .is_master = rank == 0,
                                                          .world_size = world_size, .timeout = timeout});
}

std::shared_ptr<ProcessGroup> checked_default(const char* caller) {
  std::lock_guard<std::mutex> lock(default_group_mutex);
  EMBER_CHECK(default_group != nullptr, caller,
              ": the default process group has not been initialized (call init_process_group first)");
  return default_group;
}

}  // namespace

void register_backend(const std::string& name, ProcessGroupFactory factory) {
  EMBER_CHECK(factory != nullptr, "register_backend: the factory of backend '", name, "' is empty");
  EMBER_CHECK(lower(name) != "gloo", "register_backend: 'gloo' is Ember::distributed's own backend");
  std::lock_guard<std::mutex> lock(backends_mutex);
  backends()[lower(name)] = std::move(factory);
}

bool is_backend_available(const std::string& name) {
  return lower(name) == "gloo" || registered_backend(lower(name)) != nullptr;
}

bool nccl_is_available() { return is_backend_available("nccl"); }

std::shared_ptr<ProcessGroup> init_process_group(const std::string& backend, const InitOptions& options) {
  const std::string name = lower(backend);
  EMBER_CHECK(name != "nccl" || nccl_is_available(),
              "init_process_group: backend 'nccl' is not available: link Ember::distributed_nccl and include "
              "<ember/distributed/process_group_nccl.h> (the library is built where CMake finds CUDA and NCCL: "
              "EMBER_WITH_NCCL)");
  EMBER_CHECK(is_backend_available(name), "init_process_group: unknown backend '", backend,
              "'; Ember::distributed offers: gloo, nccl (with Ember::distributed_nccl)");
  {
    std::lock_guard<std::mutex> lock(default_group_mutex);
    EMBER_CHECK(default_group == nullptr,
                "init_process_group: the default process group is already initialized (destroy_process_group first)");
  }
  EMBER_CHECK(!(options.store && options.init_method), "init_process_group: init_method '", *options.init_method,
              "' and a store were both given; pass one");
  int64_t rank = options.rank;
  int64_t world_size = options.world_size;
  std::shared_ptr<Store> store = options.store;
  if (!store) {
    const std::string method = options.init_method.value_or("env://");
    if (method.rfind("env://", 0) == 0) {
      const std::string why = "env:// rendezvous";
      const std::string addr = env_or_fail("MASTER_ADDR", why.c_str());
      const uint16_t port = parse_port(env_or_fail("MASTER_PORT", why.c_str()), "MASTER_PORT");
      if (rank < 0) rank = parse_int(env_or_fail("RANK", why.c_str()), "RANK");
      if (world_size < 0) world_size = parse_int(env_or_fail("WORLD_SIZE", why.c_str()), "WORLD_SIZE");
      EMBER_CHECK(world_size >= 1 && rank >= 0 && rank < world_size, "init_process_group: rank ", rank,
                  " is outside [0, ", world_size, ")");
      store = tcp_store(addr, port, rank, world_size, options.timeout);
    } else {
      EMBER_CHECK(rank >= 0 && world_size >= 1, "init_process_group: ", method,
                  " needs rank and world_size, got rank ", rank, " and world_size ", world_size);
      EMBER_CHECK(rank < world_size, "init_process_group: rank ", rank, " is outside [0, ", world_size, ")");
      if (method.rfind("tcp://", 0) == 0) {
        const auto [host, port] = split_host_port(method.substr(6), method);
        store = tcp_store(host, port, rank, world_size, options.timeout);
      } else if (method.rfind("file://", 0) == 0) {
        EMBER_CHECK(method.size() > 7, "init_process_group: ", method, " names no file");
        store = std::make_shared<FileStore>(method.substr(7), options.timeout);
      } else {
        EMBER_FAIL("init_process_group: unknown init_method '", method, "' (env://, tcp://host:port, file://path)");
      }
    }
  } else {
    EMBER_CHECK(rank >= 0 && world_size >= 1 && rank < world_size,
                "init_process_group: a store needs rank in [0, world_size), got rank ", rank, " and world_size ",
                world_size);
  }
  // As c10d: the default group's keys live under "default_pg/".
  auto group = make_group(name, std::make_shared<PrefixStore>("default_pg", store), rank, world_size, options.timeout);
  std::lock_guard<std::mutex> lock(default_group_mutex);
  EMBER_CHECK(default_group == nullptr, "init_process_group: another thread initialized the default group meanwhile");
  default_group = group;
  world_store = store;
  world_timeout = options.timeout;
  world_backend = name;
  groups_made = 0;
  return group;
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(default_group_mutex);
  return default_group != nullptr;
}

std::shared_ptr<ProcessGroup> default_process_group() { return checked_default("default_process_group"); }
int64_t get_rank() { return checked_default("get_rank")->rank(); }
int64_t get_world_size() { return checked_default("get_world_size")->size(); }

void destroy_process_group() {
  std::shared_ptr<ProcessGroup> group;
  {
    std::lock_guard<std::mutex> lock(default_group_mutex);
    EMBER_CHECK(default_group != nullptr, "destroy_process_group: there is no default process group");
    group = std::move(default_group);
    world_store.reset();
  }
  group.reset();  // waits for its queued collectives when this was the last reference
}

// Note [new_group]: as c10d, every rank of the world calls new_group with
// the same ranks in the same order (members or not), so that the n-th group
// gets the store prefix "group_<n>" on every rank; members rendezvous there
// as ranks 0..k-1 in the order of the sorted ranks, the others get null
// (c10d's GroupMember.NON_GROUP_MEMBER).
std::shared_ptr<ProcessGroup> new_group(std::vector<int64_t> ranks, std::optional<std::chrono::milliseconds> timeout) {
  std::shared_ptr<Store> store;
  int64_t world_size = 0, world_rank = 0, index = 0;
  std::chrono::milliseconds group_timeout{0};
  std::string backend;
  {
    std::lock_guard<std::mutex> lock(default_group_mutex);
    EMBER_CHECK(default_group != nullptr, "new_group: there is no default process group (call init_process_group)");
    store = world_store;
    world_size = default_group->size();
    world_rank = default_group->rank();
    group_timeout = timeout ? *timeout : world_timeout;
    index = groups_made++;
    backend = world_backend;
  }
  if (ranks.empty())
    for (int64_t r = 0; r < world_size; ++r) ranks.push_back(r);
  std::sort(ranks.begin(), ranks.end());
  for (size_t i = 0; i < ranks.size(); ++i) {
    EMBER_CHECK(ranks[i] >= 0 && ranks[i] < world_size, "new_group: rank ", ranks[i], " is outside [0, ", world_size,
                ")");
    EMBER_CHECK(i == 0 || ranks[i] != ranks[i - 1], "new_group: rank ", ranks[i], " is listed twice");
  }
  const auto member = std::find(ranks.begin(), ranks.end(), world_rank);
  if (member == ranks.end()) return nullptr;
  return make_group(backend, std::make_shared<PrefixStore>("group_" + std::to_string(index), store),
                    member - ranks.begin(), static_cast<int64_t>(ranks.size()), group_timeout);
}

namespace {
std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (async_op) return work;
  work->wait();
  return nullptr;
}
}  // namespace

std::shared_ptr<Work> broadcast(Tensor& tensor, int64_t src, bool async_op) {
  return finish(checked_default("broadcast")->broadcast(tensor, {.root_rank = src}), async_op);
}

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, bool async_op) {
  return finish(checked_default("all_reduce")->all_reduce(tensor, {.reduce_op = op}), async_op);
}

std::shared_ptr<Work> barrier(bool async_op) {
  return finish(checked_default("barrier")->barrier(), async_op);
}

std::shared_ptr<Work> reduce(Tensor& tensor, int64_t dst, ReduceOp op, bool async_op) {
  return finish(checked_default("reduce")->reduce(tensor, {.reduce_op = op, .root_rank = dst}), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor, bool async_op) {
  return finish(checked_default("all_gather")->all_gather(tensor_list, tensor), async_op);
}

std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, bool async_op) {
  return finish(checked_default("all_gather_into_tensor")->all_gather_into_tensor(output, input), async_op);
}

std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>& gather_list, int64_t dst, bool async_op) {
  return finish(checked_default("gather")->gather(gather_list, tensor, {.root_rank = dst}), async_op);
}

std::shared_ptr<Work> scatter(Tensor& tensor, const std::vector<Tensor>& scatter_list, int64_t src, bool async_op) {
  return finish(checked_default("scatter")->scatter(tensor, scatter_list, {.root_rank = src}), async_op);
}

std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op,
                                     bool async_op) {
  return finish(checked_default("reduce_scatter")->reduce_scatter(output, input_list, {.reduce_op = op}), async_op);
}

std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input,
                                        const std::vector<int64_t>& output_split_sizes,
                                        const std::vector<int64_t>& input_split_sizes, bool async_op) {
  return finish(checked_default("all_to_all_single")
                    ->all_to_all_single(output, input, output_split_sizes, input_split_sizes),
                async_op);
}

std::shared_ptr<Work> all_to_all(std::vector<Tensor>& output_tensor_list, const std::vector<Tensor>& input_tensor_list,
                                 bool async_op) {
  return finish(checked_default("all_to_all")->all_to_all(output_tensor_list, input_tensor_list), async_op);
}

std::shared_ptr<Work> all_reduce_coalesced(std::vector<Tensor>& tensors, ReduceOp op, bool async_op) {
  return finish(checked_default("all_reduce_coalesced")->all_reduce_coalesced(tensors, {.reduce_op = op}), async_op);
}

void monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks) {
  checked_default("monitored_barrier")->monitored_barrier(timeout, wait_all_ranks);
}

std::shared_ptr<Work> isend(const Tensor& tensor, int64_t dst, int64_t tag) {
  return checked_default("isend")->send(tensor, dst, tag);
}

std::shared_ptr<Work> irecv(Tensor& tensor, int64_t src, int64_t tag) {
  auto group = checked_default("irecv");
  return src < 0 ? group->recv_anysource(tensor, tag) : group->recv(tensor, src, tag);
}

void send(const Tensor& tensor, int64_t dst, int64_t tag) { isend(tensor, dst, tag)->wait(); }

int64_t recv(Tensor& tensor, int64_t src, int64_t tag) {
  auto work = irecv(tensor, src, tag);
  work->wait();
  return work->source_rank();
}

}  // namespace ember::distributed
