// CUDA unique and unique_consecutive (unique_slot). Sorted unique takes the
// stable ascending radix sort of the values (Note [CUDA sorting] in sort.cuh);
// unique_consecutive keeps input order. Then, over that order: a flag where a
// new value starts (NaN != NaN, so each NaN is its own value, as on the CPU;
// NaNs sort last in input order, so their slots follow input order too), an
// inclusive cumsum of the flags (the CUDA scan) giving each entry's slot, and
// the number of unique values read back to the host to size the outputs (as
// PyTorch's CUDA unique does: the one device-to-host read of the family).
#include "ember/ops/scan.h"
#include "kernels/slots/sort_kernels.h"
#include "register.h"
#include "sort.cuh"

namespace ember::cuda::kernels {
namespace {

// starts[i] = 1 where entry i of the order (order[i], or i without an order)
// holds a value different from entry i - 1's, else 0.
template <class T>
__global__ void run_starts_kernel(const T* x, const int64_t* order, int64_t n, int64_t* starts) {
  using C = compute_t<T>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (i == 0) {
      starts[0] = 1;
      continue;
    }
    const int64_t a = order ? order[i] : i;
    const int64_t b = order ? order[i - 1] : i - 1;
    starts[i] = !(convert<C>(x[a]) == convert<C>(x[b]));
  }
}

// slots[i]: 1 + the unique slot of entry i (the cumsum of the starts).
template <class T>
__global__ void scatter_unique_kernel(const T* x, const int64_t* order, int64_t n, const int64_t* slots, T* values,
                                      int64_t* first, int64_t* inverse) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t a = order ? order[i] : i;
    const int64_t slot = slots[i] - 1;
    if (i == 0 || slots[i - 1] != slots[i]) {
      values[slot] = x[a];
      if (first) first[slot] = i;
    }
    if (inverse) inverse[a] = slot;
  }
}

__global__ void counts_kernel(const int64_t* first, int64_t u, int64_t n, int64_t* counts) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < u; j += stride)
    counts[j] = (j + 1 < u ? first[j + 1] : n) - first[j];
}

constexpr uint32_t kSortable = kMaskReal | kMaskBool;

std::tuple<Tensor, Tensor, Tensor> unique_kernel(const Tensor& in, bool consecutive, bool return_inverse,
                                                 bool return_counts) {
  const char* op = consecutive ? "unique_consecutive" : "unique";
  EMBER_CHECK((kSortable & dtype_bit(in.dtype())) != 0, op, ": no CUDA kernel for ", in.dtype());
  EMBER_CHECK(in.dim() == 1 && in.is_contiguous(), op, ": the CUDA kernel takes a 1-d contiguous input, got sizes ",
              in.sizes());
  const int64_t n = in.numel();
  const TensorOptions long_opts = TensorOptions(kInt64).device(in.device());
  if (n == 0) return {empty({0}, in.options()), empty({0}, long_opts), empty({0}, long_opts)};
  const Tensor order = consecutive ? Tensor() : sorted_positions(in, 1, n, false, op);
  const int64_t* order_ptr = consecutive ? nullptr : static_cast<const int64_t*>(order.data_ptr());
  const int16_t index = launch_device(in.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  Tensor starts = empty({n}, long_opts);
  dispatch_sortable(in.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    run_starts_kernel<T><<<sort_grid_for(n), kSortThreads, 0, stream>>>(static_cast<const T*>(in.data_ptr()),
                                                                         order_ptr, n,
                                                                         static_cast<int64_t*>(starts.data_ptr()));
    check_launch(op);
  });
  const Tensor slots = cumsum(starts, 0);
  const int64_t u = slots.narrow(0, n - 1, 1).item<int64_t>();  // waits for the stream
  Tensor values = empty({u}, in.options());
  Tensor inverse = empty({return_inverse ? n : 0}, long_opts);
  Tensor first = empty({return_counts ? u : 0}, long_opts);
  dispatch_sortable(in.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    scatter_unique_kernel<T><<<sort_grid_for(n), kSortThreads, 0, stream>>>(
        static_cast<const T*>(in.data_ptr()), order_ptr, n, static_cast<const int64_t*>(slots.data_ptr()),
        static_cast<T*>(values.data_ptr()), return_counts ? static_cast<int64_t*>(first.data_ptr()) : nullptr,
        return_inverse ? static_cast<int64_t*>(inverse.data_ptr()) : nullptr);
    check_launch(op);
  });
  Tensor counts = empty({return_counts ? u : 0}, long_opts);
  if (return_counts) {
    counts_kernel<<<sort_grid_for(u), kSortThreads, 0, stream>>>(static_cast<const int64_t*>(first.data_ptr()), u, n,
                                                                  static_cast<int64_t*>(counts.data_ptr()));
    check_launch(op);
  }
  return {values, inverse, counts};
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(unique_slot, unique_kernel, kSortable);

}  // namespace ember::cuda::kernels
