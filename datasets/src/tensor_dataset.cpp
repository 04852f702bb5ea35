// TensorDataset.
#include "ember/datasets/tensor_dataset.h"

#include "ember/core/error.h"

namespace ember::datasets {

TensorDataset::TensorDataset(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  EMBER_CHECK(!tensors_.empty(), "TensorDataset: expected at least one tensor");
  for (size_t i = 0; i < tensors_.size(); ++i) {
    EMBER_CHECK(tensors_[i].defined() && tensors_[i].dim() > 0, "TensorDataset: tensor ", i,
                " must be defined with at least one dimension");
    EMBER_CHECK(tensors_[i].size(0) == tensors_[0].size(0), "TensorDataset: size mismatch between tensors: tensor 0 has ",
                tensors_[0].size(0), " rows and tensor ", i, " has ", tensors_[i].size(0));
  }
  size_ = tensors_[0].size(0);
}

std::vector<Tensor> TensorDataset::get(int64_t index) {
  EMBER_CHECK(index >= 0 && index < size_, "TensorDataset: index ", index, " is out of range for a dataset of size ",
              size_);
  std::vector<Tensor> rows;
  rows.reserve(tensors_.size());
  for (const Tensor& t : tensors_) rows.push_back(t.select(0, index));
  return rows;
}

}  // namespace ember::datasets
