#pragma once
// torch.distributed's module-level API: init_process_group and the default
// group it creates, and collectives on that group.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

// Process-group backends of other libraries, by name (c10d's
// Backend.register_backend): Ember::distributed_nccl registers "nccl" when it
// is loaded (a program that includes <ember/distributed/process_group_nccl.h>
// links it). A second registration of a name replaces the first.
using ProcessGroupFactory = std::function<std::shared_ptr<ProcessGroup>(
    std::shared_ptr<Store> store, int64_t rank, int64_t size, std::chrono::milliseconds timeout)>;
void register_backend(const std::string& name, ProcessGroupFactory factory);
// "gloo", or a registered backend (names are case-insensitive).
bool is_backend_available(const std::string& name);
// is_backend_available("nccl") (torch.distributed.is_nccl_available()).
bool nccl_is_available();

// Creates the default process group (backend "gloo", or "nccl" where
// nccl_is_available(): a ProcessGroupNCCL) and returns it. Raises
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

// A group of some ranks of the default group (empty: all), ranked by their
// order; every rank must call it, in the same order of calls (Note
// [new_group] in init.cpp). Non-members get null. The timeout defaults to the
// default group's.
std::shared_ptr<ProcessGroup> new_group(std::vector<int64_t> ranks = {},
                                        std::optional<std::chrono::milliseconds> timeout = std::nullopt);

// Collectives on the default group. Without async_op they wait and return
// null; with it they return the Work.
std::shared_ptr<Work> broadcast(Tensor& tensor, int64_t src, bool async_op = false);
std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM, bool async_op = false);
std::shared_ptr<Work> barrier(bool async_op = false);
// torch.distributed's names and argument orders (ProcessGroup documents each).
std::shared_ptr<Work> reduce(Tensor& tensor, int64_t dst, ReduceOp op = ReduceOp::SUM, bool async_op = false);
std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor, bool async_op = false);
std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, bool async_op = false);
// gather_list: size() tensors on dst, empty elsewhere.
std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>& gather_list, int64_t dst = 0,
                             bool async_op = false);
// scatter_list: size() tensors on src, empty elsewhere.
std::shared_ptr<Work> scatter(Tensor& tensor, const std::vector<Tensor>& scatter_list, int64_t src = 0,
                              bool async_op = false);
std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& input_list,
                                     ReduceOp op = ReduceOp::SUM, bool async_op = false);
std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input,
                                        const std::vector<int64_t>& output_split_sizes = {},
                                        const std::vector<int64_t>& input_split_sizes = {}, bool async_op = false);
std::shared_ptr<Work> all_to_all(std::vector<Tensor>& output_tensor_list,
                                 const std::vector<Tensor>& input_tensor_list, bool async_op = false);
std::shared_ptr<Work> all_reduce_coalesced(std::vector<Tensor>& tensors, ReduceOp op = ReduceOp::SUM,
                                           bool async_op = false);
void monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks = false);
// Point to point on the default group: send and recv wait; isend and irecv
// return the Work. src -1 receives from any rank; recv returns the sender.
void send(const Tensor& tensor, int64_t dst, int64_t tag = 0);
int64_t recv(Tensor& tensor, int64_t src = -1, int64_t tag = 0);
std::shared_ptr<Work> isend(const Tensor& tensor, int64_t dst, int64_t tag = 0);
std::shared_ptr<Work> irecv(Tensor& tensor, int64_t src = -1, int64_t tag = 0);

}  // namespace ember::distributed
