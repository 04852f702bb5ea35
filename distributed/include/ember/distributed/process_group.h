#pragma once
// ProcessGroup: a group of ranks running collectives together
// (torch.distributed's ProcessGroup). Backends derive from it: Gloo
// (process_group_gloo.h) on CPU tensors. Every collective returns a Work at
// once and runs asynchronously; collectives of one group run in the order
// they were called, which must be the same on every rank.
#include <cstdint>
#include <memory>
#include <string>

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

 private:
  int64_t rank_;
  int64_t size_;
};

}  // namespace ember::distributed
