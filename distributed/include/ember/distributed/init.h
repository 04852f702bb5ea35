#pragma once
// torch.distributed's module-level API: init_process_group and the default
// group it creates, and collectives on that group.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <ember/distributed/process_group.h>
#include <ember/distributed/store.h>

namespace ember::distributed {

struct InitOptions {
  // "env://" (MASTER_ADDR, MASTER_PORT, and RANK / WORLD_SIZE unless given
  // here), "tcp://host:port" or "file://path"; none: "env://", unless a store
  // is given (the two exclude each other).
  std::optional<std::string> init_method = std::nullopt;
  // This process's rank and the number of ranks; -1: from the environment
  // (env://) and required otherwise.
  int64_t rank = -1;
  int64_t world_size = -1;
  // Timeout of the rendezvous and of every collective.
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
  // A store to rendezvous through instead of init_method.
  std::shared_ptr<Store> store = nullptr;
};

// Creates the default process group (backend "gloo") and returns it. Raises
// ember::Error when one exists already, for an unknown backend or
// init_method, or when the rendezvous times out.
std::shared_ptr<ProcessGroup> init_process_group(const std::string& backend, const InitOptions& options = {});
bool is_initialized();
// The default group; ember::Error naming the caller when there is none.
std::shared_ptr<ProcessGroup> default_process_group();
int64_t get_rank();
int64_t get_world_size();
// Waits for the default group's queued collectives and removes it.
void destroy_process_group();

// Collectives on the default group. Without async_op they wait and return
// null; with it they return the Work.
std::shared_ptr<Work> broadcast(Tensor& tensor, int64_t src, bool async_op = false);
std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM, bool async_op = false);
std::shared_ptr<Work> barrier(bool async_op = false);

}  // namespace ember::distributed
