#pragma once
// TensorDataset: samples are the rows (index along dim 0) of tensors that share
// their first dimension (torch.utils.data.TensorDataset).
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/datasets/dataset.h"

namespace ember::datasets {

// A sample is the vector {t0[i], t1[i], ...} of views of row i, so the default
// collation gives a vector of stacked batches {t0[batch], t1[batch], ...}.
class TensorDataset final : public Dataset<std::vector<Tensor>> {
 public:
  // At least one tensor, each with at least one dimension, all of the same size(0).
  explicit TensorDataset(std::vector<Tensor> tensors);

  std::vector<Tensor> get(int64_t index) override;
  int64_t size() const override { return size_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
  int64_t size_ = 0;
};

}  // namespace ember::datasets
