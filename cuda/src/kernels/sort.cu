// CUDA sort and topk (sort_slot, topk_slot) through the stable radix sort
// (Note [CUDA sorting] in sort.cuh). topk is the first k of the stable sort
// (descending for largest), which is the CPU's answer, ties and NaNs taken by
// the lower index; sorted=false gives them sorted too, which is allowed.
#include "kernels/slots/sort_kernels.h"
#include "register.h"
#include "sort.cuh"

namespace ember::cuda::kernels {

Tensor rows_along(const Tensor& in, int64_t dim) {
  if (in.dim() == 0) return in.reshape({1});
  return in.movedim(dim, -1).contiguous();
}

namespace {

// For output i (row i / m, entry i % m): the m first entries of each sorted
// row of n; values[i] = x[position], indices[i] = position within its row.
template <class B>
__global__ void gather_sorted_kernel(const B* x, const int64_t* positions, int64_t rows, int64_t n, int64_t m,
                                     B* values, int64_t* indices) {
  const int64_t total = rows * m;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t row = i / m;
    const int64_t pos = positions[row * n + (i - row * m)];
    values[i] = x[pos];
    indices[i] = pos - row * n;
  }
}

// Sorts the rows of `in` along dim and writes the first m of each into
// values/indices (size m along dim).
void sort_into(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, int64_t m, bool descending,
               const char* op) {
  EMBER_CHECK(values.dtype() == in.dtype() && indices.dtype() == kInt64, op,
              ": CUDA kernel called with outputs of dtype ", values.dtype(), " and ", indices.dtype());
  const Tensor x = rows_along(in, dim);
  const int64_t n = in.dim() == 0 ? 1 : in.size(dim);
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  if (rows == 0 || m == 0) return;
  const Tensor positions = sorted_positions(x, rows, n, descending, op);
  // The outputs in [rows, m] order: values/indices themselves when dim is
  // their last (or they are 0-dim), else temporaries copied into them.
  const bool direct = (in.dim() == 0 || dim == in.dim() - 1) && values.is_contiguous() && indices.is_contiguous();
  DimVector row_shape(x.sizes());
  row_shape.back() = m;
  Tensor v = direct ? values : empty(row_shape, values.options());
  Tensor ix = direct ? indices : empty(row_shape, indices.options());
  const int16_t index = launch_device(in.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  const size_t bytes = element_size(in.dtype());
  auto launch = [&](auto bits_tag) {
    using B = decltype(bits_tag);
    gather_sorted_kernel<B><<<sort_grid_for(rows * m), kSortThreads, 0, stream>>>(
        static_cast<const B*>(x.data_ptr()), static_cast<const int64_t*>(positions.data_ptr()), rows, n, m,
        static_cast<B*>(v.data_ptr()), static_cast<int64_t*>(ix.data_ptr()));
    check_launch(op);
  };
  switch (bytes) {
    case 1: launch(uint8_t{}); break;
    case 2: launch(uint16_t{}); break;
    case 4: launch(uint32_t{}); break;
    default: launch(uint64_t{}); break;
  }
  if (!direct) {
    values.copy_(v.movedim(-1, dim));
    indices.copy_(ix.movedim(-1, dim));
  }
}

constexpr uint32_t kSortable = kMaskReal | kMaskBool;

void check_sortable_dtype(DType dt, const char* op) {
  EMBER_CHECK((kSortable & dtype_bit(dt)) != 0, op, ": no CUDA kernel for ", dt);
}

void sort_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool descending) {
  check_sortable_dtype(in.dtype(), "sort");
  sort_into(in, values, indices, dim, in.dim() == 0 ? 1 : in.size(dim), descending, "sort");
}

void topk_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, int64_t k, bool largest,
                 bool /*sorted*/) {
  check_sortable_dtype(in.dtype(), "topk");
  const int64_t n = in.dim() == 0 ? 1 : in.size(dim);
  EMBER_CHECK(k >= 0 && k <= n, "topk: k = ", k, " out of range for a dim of size ", n);
  sort_into(in, values, indices, dim, k, largest, "topk");
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(sort_slot, sort_kernel, kSortable);
EMBER_REGISTER_CUDA_KERNEL(topk_slot, topk_kernel, kSortable);

}  // namespace ember::cuda::kernels
