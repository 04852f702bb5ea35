#pragma once
// GradBucket: what a DDP communication hook sees of one bucket
// (torch.distributed.GradBucket): the flat buffer of the bucket's gradients,
// its index, its parameters and whether it is the last bucket of the
// iteration.
#include <cstdint>
#include <memory>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/distributed/process_group.h>

namespace ember::distributed {

class GradBucket {
 public:
  // offsets[i]: where parameter i's gradient starts in buffer (1-D).
  GradBucket(int64_t index, bool is_last, Tensor buffer, std::vector<Tensor> parameters, std::vector<int64_t> offsets,
             std::shared_ptr<ProcessGroup> process_group);

  int64_t index() const { return index_; }
  // Whether this is the last bucket to be reduced in the iteration
  // (PowerSGD counts iterations with it).
  bool is_last() const { return is_last_; }
  // The bucket's gradients, one after another: a hook reduces it (in place or
  // into a new tensor it returns).
  const Tensor& buffer() const { return buffer_; }
  // Replaces the buffer (compression wrappers hand a cast copy to the hook
  // they wrap); same number of elements.
  void set_buffer(Tensor buffer);
  const std::vector<Tensor>& parameters() const { return parameters_; }
  // Views of buffer() shaped as the parameters.
  std::vector<Tensor> gradients() const;
  const std::vector<int64_t>& offsets() const { return offsets_; }
  // The DDP's process group (hooks whose state names no group use it).
  const std::shared_ptr<ProcessGroup>& process_group() const { return process_group_; }

 private:
  int64_t index_;
  bool is_last_;
  Tensor buffer_;
  std::vector<Tensor> parameters_;
  std::vector<int64_t> offsets_;
  std::shared_ptr<ProcessGroup> process_group_;
};

}  // namespace ember::distributed
