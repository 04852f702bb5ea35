#pragma once
// ProcessGroupNCCL: collectives on CUDA tensors over NVIDIA's NCCL, as
// torch.distributed's "nccl" backend, in its own library Ember::distributed_nccl
// (built when CMake finds CUDA and NCCL: EMBER_WITH_NCCL), so that programs of
// Ember::distributed alone never load CUDA. Including this header links the
// library's registration of the "nccl" backend (init_process_group("nccl")).
// This header includes neither CUDA's nor NCCL's headers.
//
// A collective is queued on the GPU and returns at once: it runs on an NCCL
// stream of the tensors' device that first waits for the caller's current
// stream; Work::wait() makes the caller's current stream wait for it (the
// host does not block, as PyTorch's). A watchdog thread finishes each Work
// when its GPU work is done and aborts the communicator of a collective that
// outlives its timeout (Note [NCCL watchdog] in process_group_nccl.cpp).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <ember/distributed/init.h>  // nccl_is_available()
#include <ember/distributed/process_group.h>
#include <ember/distributed/process_group_gloo.h>  // kDefaultProcessGroupTimeout
#include <ember/distributed/store.h>

namespace ember::distributed {

namespace detail {
// Registers "nccl" with init_process_group (once); true. Referenced below from
// every translation unit including this header, so that the linker keeps
// Ember::distributed_nccl even where it drops libraries nothing refers to
// (--as-needed).
bool register_nccl_backend();
[[maybe_unused]] inline const bool nccl_backend_registered = register_nccl_backend();
}  // namespace detail

struct ProcessGroupNCCLOptions {
  // Timeout of each collective without its own, and of creating a
  // communicator (the unique id exchange through the store and NCCL's init).
  std::chrono::milliseconds timeout = kDefaultProcessGroupTimeout;
  // How often the watchdog looks at the pending collectives (PyTorch: 100 ms).
  std::chrono::milliseconds watchdog_interval{100};
};

class ProcessGroupNCCL final : public ProcessGroup {
 public:
  // Nothing is connected yet: a communicator per device is created on the
  // first collective there, its unique id exchanged through store (rank 0
  // sets it, the others get it, as c10d).
  ProcessGroupNCCL(std::shared_ptr<Store> store, int64_t rank, int64_t size,
                   const ProcessGroupNCCLOptions& options = {});
  // Waits (each within its timeout) for the collectives in flight, then
  // destroys the communicators.
  ~ProcessGroupNCCL() override;

  std::string backend_name() const override { return "nccl"; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  // NCCL's version as NCCL_VERSION_CODE (e.g. 22809 for 2.28.9).
  static int nccl_version();
  // The error that aborted the group ("" while it works): once set, every
  // later call raises it.
  std::string abort_reason() const;

  std::shared_ptr<Work> broadcast(Tensor& tensor, const BroadcastOptions& options = {}) override;
  std::shared_ptr<Work> all_reduce(Tensor& tensor, const AllreduceOptions& options = {}) override;
  // An all_reduce of one element on the device of the group's last
  // collective (else cuda:rank % device_count, as PyTorch); its wait()
  // blocks the host until it is done.
  std::shared_ptr<Work> barrier(const BarrierOptions& options = {}) override;
  // One all_reduce per tensor inside ncclGroupStart/End.
  std::shared_ptr<Work> all_reduce_coalesced(std::vector<Tensor>& tensors,
                                             const AllreduceOptions& options = {}) override;
  // Not offered by the nccl backend (PyTorch's neither): raises.
  void monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks = false) override;
  std::shared_ptr<Work> reduce(Tensor& tensor, const ReduceOptions& options = {}) override;
  std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input,
                                   const CollectiveOptions& options = {}) override;
  std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input,
                                               const CollectiveOptions& options = {}) override;
  std::shared_ptr<Work> gather(std::vector<Tensor>& outputs, const Tensor& input,
                               const CollectiveOptions& options = {}) override;
  std::shared_ptr<Work> scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                const CollectiveOptions& options = {}) override;
  std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                       const ReduceScatterOptions& options = {}) override;
  std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input,
                                          const std::vector<int64_t>& output_splits = {},
                                          const std::vector<int64_t>& input_splits = {},
                                          const CollectiveOptions& options = {}) override;
  std::shared_ptr<Work> all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                   const CollectiveOptions& options = {}) override;
  // Point to point over a two-rank communicator of the pair (created on the
  // pair's first transfer, as PyTorch's). NCCL matches a pair's transfers in
  // the order they were issued; tags must lie in [0, 2^32) but, as in
  // PyTorch's nccl backend, do not take part in the matching.
  std::shared_ptr<Work> send(const Tensor& tensor, int64_t dst_rank, int64_t tag = 0,
                             const PointToPointOptions& options = {}) override;
  std::shared_ptr<Work> recv(Tensor& tensor, int64_t src_rank, int64_t tag = 0,
                             const PointToPointOptions& options = {}) override;
  // Not offered by the nccl backend (PyTorch's neither): raises.
  std::shared_ptr<Work> recv_anysource(Tensor& tensor, int64_t tag = 0,
                                       const PointToPointOptions& options = {}) override;

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::chrono::milliseconds timeout_;
};

}  // namespace ember::distributed
