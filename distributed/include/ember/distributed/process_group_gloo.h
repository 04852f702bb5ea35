#pragma once
// ProcessGroupGloo: collectives on CPU tensors over Facebook's Gloo (Debian's
// libgloo, TCP transport), as torch.distributed's "gloo" backend. The ranks
// rendezvous through a Store: each publishes its address there and connects
// to every other (a full mesh of TCP pairs).
#include <chrono>
#include <memory>
#include <string>

#include <ember/distributed/process_group.h>
#include <ember/distributed/store.h>

namespace ember::distributed {

// c10d's default process-group timeout: 30 minutes.
inline constexpr std::chrono::milliseconds kDefaultProcessGroupTimeout{30 * 60 * 1000};

struct ProcessGroupGlooOptions {
  // Timeout of the rendezvous and of each collective without its own.
  std::chrono::milliseconds timeout = kDefaultProcessGroupTimeout;
  // The network interface to use (PyTorch's GLOO_SOCKET_IFNAME); empty: the
  // GLOO_SOCKET_IFNAME environment variable, else the address the host name
  // resolves to, else 127.0.0.1.
  std::string interface = {};
  // A host name or address to use instead of an interface.
  std::string hostname = {};
};

class ProcessGroupGloo final : public ProcessGroup {
 public:
  // Rendezvous with the other size-1 ranks through store (blocks until all
  // arrived or the timeout passed).
  ProcessGroupGloo(std::shared_ptr<Store> store, int64_t rank, int64_t size,
                   const ProcessGroupGlooOptions& options = {});
  // Finishes the collectives already queued, then disconnects.
  ~ProcessGroupGloo() override;

  std::string backend_name() const override { return "gloo"; }
  std::chrono::milliseconds timeout() const { return timeout_; }

  std::shared_ptr<Work> broadcast(Tensor& tensor, const BroadcastOptions& options = {}) override;
  std::shared_ptr<Work> all_reduce(Tensor& tensor, const AllreduceOptions& options = {}) override;
  std::shared_ptr<Work> barrier(const BarrierOptions& options = {}) override;
  std::shared_ptr<Work> all_reduce_coalesced(std::vector<Tensor>& tensors,
                                             const AllreduceOptions& options = {}) override;
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
  std::shared_ptr<Work> send(const Tensor& tensor, int64_t dst_rank, int64_t tag = 0,
                             const PointToPointOptions& options = {}) override;
  std::shared_ptr<Work> recv(Tensor& tensor, int64_t src_rank, int64_t tag = 0,
                             const PointToPointOptions& options = {}) override;
  std::shared_ptr<Work> recv_anysource(Tensor& tensor, int64_t tag = 0,
                                       const PointToPointOptions& options = {}) override;

  struct State;

 private:
  std::shared_ptr<Work> post_recv(Tensor& tensor, std::vector<int> sources, int64_t tag,
                                  const PointToPointOptions& options, const char* op);
  std::unique_ptr<State> state_;
  std::chrono::milliseconds timeout_;
  int64_t monitored_barriers_ = 0;  // how many this rank called (their store keys)
};

}  // namespace ember::distributed
