#pragma once
// ProcessGroup: a group of ranks running collectives together
// (torch.distributed's ProcessGroup). Backends derive from it: Gloo
// (process_group_gloo.h) on CPU tensors. Every collective returns a Work at
// once and runs asynchronously; collectives of one group run in the order
// they were called, which must be the same on every rank.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/distributed/types.h>
#include <ember/distributed/work.h>

namespace ember::distributed {

class ProcessGroup {
 public:
  ProcessGroup(int64_t rank, int64_t size);
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int64_t rank() const { return rank_; }
  int64_t size() const { return size_; }
  virtual std::string backend_name() const = 0;

  // tensor on every rank becomes root_rank's tensor.
  virtual std::shared_ptr<Work> broadcast(Tensor& tensor, const BroadcastOptions& options = {}) = 0;
  // tensor on every rank becomes the reduction of all ranks' tensors.
  virtual std::shared_ptr<Work> all_reduce(Tensor& tensor, const AllreduceOptions& options = {}) = 0;
  // Finishes once every rank entered it.
  virtual std::shared_ptr<Work> barrier(const BarrierOptions& options = {}) = 0;
  // Every tensor (one dtype) is all-reduced, through one flat buffer: one
  // collective instead of tensors.size().
  virtual std::shared_ptr<Work> all_reduce_coalesced(std::vector<Tensor>& tensors,
                                                     const AllreduceOptions& options = {}) = 0;
  // A barrier through the store, run on the caller's thread: rank 0 waits up
  // to timeout for every rank and raises naming the first rank that did not
  // arrive (every such rank with wait_all_ranks); the others raise when rank
  // 0 does not release them in time.
  virtual void monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks = false) = 0;
  // tensor on root_rank becomes the reduction of all ranks' tensors; the
  // other ranks' tensors are left as they were.
  virtual std::shared_ptr<Work> reduce(Tensor& tensor, const ReduceOptions& options = {}) = 0;
  // outputs[r] (size() tensors shaped as input) becomes rank r's input.
  virtual std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input,
                                           const CollectiveOptions& options = {}) = 0;
  // output ([size() * input.size(0), ...] or [size() * input.numel()]) holds
  // the ranks' inputs one after another.
  virtual std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input,
                                                       const CollectiveOptions& options = {}) = 0;
  // On root_rank, outputs[r] becomes rank r's input; other ranks pass no outputs.
  virtual std::shared_ptr<Work> gather(std::vector<Tensor>& outputs, const Tensor& input,
                                       const CollectiveOptions& options = {}) = 0;
  // output on rank r becomes root_rank's inputs[r]; other ranks pass no inputs.
  virtual std::shared_ptr<Work> scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                        const CollectiveOptions& options = {}) = 0;
  // output on rank r becomes the reduction over ranks of their inputs[r].
  virtual std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                               const ReduceScatterOptions& options = {}) = 0;
  // Rank r's rows [sum(input_splits[:p]), +input_splits[p]) of input (along
  // dim 0) go to rank p, landing in p's output at its output_splits[r] rows.
  // Empty splits: input.size(0) / size() rows each.
  virtual std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input,
                                                  const std::vector<int64_t>& output_splits = {},
                                                  const std::vector<int64_t>& input_splits = {},
                                                  const CollectiveOptions& options = {}) = 0;
  // outputs[p] becomes rank p's inputs[rank()] (shapes may differ per pair).
  virtual std::shared_ptr<Work> all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                           const CollectiveOptions& options = {}) = 0;
  // Point to point: tensor to dst_rank with a user tag. The Work finishes once
  // the peer received it. Sends and recvs do not wait for queued collectives.
  virtual std::shared_ptr<Work> send(const Tensor& tensor, int64_t dst_rank, int64_t tag = 0,
                                     const PointToPointOptions& options = {}) = 0;
  // tensor becomes what src_rank sent with the same tag (same-tag messages
  // arrive in the order they were sent).
  virtual std::shared_ptr<Work> recv(Tensor& tensor, int64_t src_rank, int64_t tag = 0,
                                     const PointToPointOptions& options = {}) = 0;
  // As recv, from whichever rank sends first; Work::source_rank() names it.
  virtual std::shared_ptr<Work> recv_anysource(Tensor& tensor, int64_t tag = 0,
                                               const PointToPointOptions& options = {}) = 0;

 private:
  int64_t rank_;
  int64_t size_;
};

}  // namespace ember::distributed
