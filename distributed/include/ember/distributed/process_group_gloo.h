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

  struct State;

 private:
  std::unique_ptr<State> state_;
  std::chrono::milliseconds timeout_;
};

}  // namespace ember::distributed
