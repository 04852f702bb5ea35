#pragma once
// DimRows: the 1-d slices ("rows") of a tensor along one dim, numbered in
// row-major order of the other dims, so tensors that differ only in the size
// of `dim` number their rows alike.
#include "ember/core/tensor.h"

namespace ember {

class DimRows {
 public:
  DimRows(const Tensor& t, int64_t dim) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == dim) continue;
      sizes_.push_back(t.size(d));
      strides_.push_back(t.stride(d));
      rows_ *= t.size(d);
    }
    size_ = t.dim() == 0 ? 1 : t.size(dim);
    stride_ = t.dim() == 0 ? 1 : t.stride(dim);
  }
  int64_t rows() const { return rows_; }
  int64_t size() const { return size_; }      // elements per row
  int64_t stride() const { return stride_; }  // between a row's elements
  // Element offset of the first element of `row`.
  int64_t offset(int64_t row) const {
    int64_t off = 0;
    for (size_t k = sizes_.size(); k-- > 0;) {
      off += (row % sizes_[k]) * strides_[k];
      row /= sizes_[k];
    }
    return off;
  }

 private:
  DimVector sizes_, strides_;
  int64_t rows_ = 1, size_ = 1, stride_ = 1;
};

}  // namespace ember
