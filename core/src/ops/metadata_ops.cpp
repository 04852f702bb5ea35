// Metadata queries on Tensor: size, stride, contiguity and memory format,
// item() and toString().
#include <algorithm>
#include <numeric>

#include "ember/core/tensor.h"
#include "ops/conj_views.h"
#include "ops/op_utils.h"

namespace ember {

int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim(d, dim(), "stride")]; }

bool Tensor::is_contiguous(MemoryFormat format) const {
  if (format == MemoryFormat::Contiguous) return impl()->is_contiguous();
  return is_contiguous_as(sizes(), strides(), format);
}

namespace {
// PyTorch's is_channels_last_strides_2d/3d (c10/core/MemoryFormat.h): the
// strides, visited channels first, then the spatial dims from the last, then
// the batch, never decrease and each step out spans the one before. Gaps are
// allowed, so a crop x[..., :4, :4] of a channels-last tensor still counts as
// channels-last (the kernels make their input dense in that layout). A zero
// channel stride, an empty dim, and ambiguous cases (the batch stride equal
// to the channel stride: [N, 1, 1, 1]) say contiguous.
bool strides_like_channels_last(IntArrayRef sizes, IntArrayRef strides, std::initializer_list<int64_t> order) {
  if (strides[1] == 0) return false;
  int64_t min = 0;
  for (int64_t d : order) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}
}  // namespace

MemoryFormat Tensor::suggest_memory_format() const {
  // PyTorch's rule (TensorBase::suggest_memory_format): the stride order
  // decides, not density. A C=1 or H=W=1 contiguous tensor stays contiguous.
  if (dim() == 4 && strides_like_channels_last(sizes(), strides(), {1, 3, 2, 0})) return MemoryFormat::ChannelsLast;
  if (dim() == 5 && strides_like_channels_last(sizes(), strides(), {1, 4, 3, 2, 0}))
    return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

bool Tensor::is_non_overlapping_and_dense() const {
  if (is_contiguous()) return true;
  const int64_t n = dim();
  DimVector perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sizes()[a] < 2) return false;
    if (sizes()[b] < 2) return true;
    return strides()[a] < strides()[b];
  });
  int64_t expected = 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = perm[i];
    if (sizes()[d] == 1) continue;
    if (strides()[d] != expected) return false;
    expected *= sizes()[d];
  }
  return true;
}

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, "item: a Tensor with ", numel(),
              " elements cannot be converted to Scalar");
  // Device memory crosses to the host through the copy slot (which resolves
  // the lazy bits on the way); host memory is read where it is.
  Tensor t = device().is_host_accessible() ? *this : to(kCPU);
  const Scalar stored = dispatch<kMaskAll>(dtype(), "item", [&](auto tag) -> Scalar {
    using T = decltype(tag);
    return Scalar(*static_cast<const T*>(t.data_ptr()));
  });
  // A conjugate/negative view: the value is the stored one transformed.
  return t.impl()->has_lazy_bits() ? to_logical_scalar(t, stored) : stored;
}

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedTensor";
  return detail::concat(device(), " ", dtype(), " tensor of size ", sizes());
}

}  // namespace ember
