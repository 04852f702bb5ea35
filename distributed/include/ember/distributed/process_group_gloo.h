#pragma once
// ProcessGroupGloo: collectives on CPU tensors over Facebook's Gloo (Debian's
// libgloo, TCP transport), as torch.distributed's "gloo" backend. The ranks
// rendezvous through a Store: each publishes its address there and connects
// to every other (a full mesh of TCP pairs).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <ember/distributed/process_group.h>
#include <ember/distributed/store.h>

namespace ember::distributed {

// c10d's default process-group timeout: 30 minutes.
inline constexpr std::chrono::milliseconds kDefaultProcessGroupTimeout{30 * 60 * 1000};

// One Gloo TCP device (c10d's create_device): a network interface, or else
// a host name or address to bind.
struct GlooDeviceOptions {
  std::string interface = {};
  std::string hostname = {};
};

struct ProcessGroupGlooOptions {
  // Timeout of the rendezvous and of each collective without its own.
  std::chrono::milliseconds timeout = kDefaultProcessGroupTimeout;
  // The network interface to use (PyTorch's GLOO_SOCKET_IFNAME), or several,
  // comma-separated ("eth0,eth1"): one device each; empty: the
  // GLOO_SOCKET_IFNAME environment variable, else the address the host name
  // resolves to, else 127.0.0.1.
  std::string interface = {};
  // A host name or address to use instead of an interface.
  std::string hostname = {};
  // Several devices (c10d's Options::devices), before all of the above: the
  // group connects a full mesh on each, and collective n runs on device
  // n % devices (send/recv: by their tag), as c10d's ProcessGroupGloo.
  std::vector<GlooDeviceOptions> devices = {};
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
  // The group's Gloo devices, as Gloo names them ("[127.0.0.1]:40123"), in
  // the order collectives use them.
  std::vector<std::string> device_names() const;

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
  // Shared with the inline runners of the Work it hands out (Note [Inline
  // collectives]), which must not outlive it.
  std::shared_ptr<State> state_;
  std::chrono::milliseconds timeout_;
  int64_t monitored_barriers_ = 0;  // how many this rank called (their store keys)
};

}  // namespace ember::distributed
