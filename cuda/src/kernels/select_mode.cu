// CUDA kthvalue/median/nanmedian (select_slot) and mode (mode_slot): one
// stable ascending sort of each row (Note [CUDA sorting] in sort.cuh), then a
// thread per row reads its answer off the sorted row, with the CPU's rules:
//  - kthvalue: entry k of the stable order (ties and NaNs by the lower index);
//  - median: the first NaN (lowest index) when the row has one, else entry
//    (n - 1) / 2; nanmedian: entry (valid - 1) / 2 of the non-NaN entries, or
//    the first NaN when all are NaN (NaNs sort last, in input order, so the
//    first NaN is found by binary search);
//  - mode: the longest run of equal values, the smallest on equal lengths,
//    and the last index of that run (the stable order puts the highest index
//    of equal values last). In parallel over all elements: run starts
//    (NaN != NaN: each NaN a run of one, as on the CPU), their cumsum numbers
//    the runs, each run's first and last entry land in a [rows, n] table at
//    the run's number within its row, and argmax over the run lengths (the
//    first maximum: the smallest value) picks the run.
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/scan.h"
#include "kernels/slots/sort_kernels.h"
#include "math.cuh"
#include "register.h"
#include "sort.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T>
__global__ void select_kernel(const T* x, const int64_t* positions, int64_t rows, int64_t n, SelectOp op, int64_t k,
                              T* values, int64_t* indices) {
  using C = compute_t<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int64_t* p = positions + row * n;
  int64_t pick = k;
  if (op != SelectOp::Kth) {
    // First NaN of the sorted row (n when there is none).
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (is_nan(convert<C>(x[p[mid]]))) hi = mid;
      else lo = mid + 1;
    }
    const int64_t nans = n - lo;
    const int64_t valid = n - (op == SelectOp::NanMedian ? nans : 0);
    if ((op == SelectOp::Median && nans > 0) || valid == 0) pick = lo;
    else pick = (valid - 1) / 2;
  }
  const int64_t pos = p[pick];
  values[row] = x[pos];
  indices[row] = pos - row * n;
}

// starts[i] = 1 where sorted entry i (of rows of n) begins a run of equal values.
template <class T>
__global__ void mode_run_starts_kernel(const T* x, const int64_t* positions, int64_t total, int64_t n,
                                       int64_t* starts) {
  using C = compute_t<T>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    starts[i] = i % n == 0 || !(convert<C>(x[positions[i]]) == convert<C>(x[positions[i - 1]]));
}

// run_ids: the inclusive cumsum of the starts (runs numbered over all rows
// from 1). Row r's k-th run gets first[r * n + k] and last[r * n + k], its
// first and last entries within the row.
__global__ void mode_run_bounds_kernel(const int64_t* run_ids, int64_t total, int64_t n, int64_t* first,
                                       int64_t* last) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t row = i / n, j = i - row * n;
    const int64_t k = run_ids[i] - run_ids[row * n];
    if (j == 0 || run_ids[i - 1] != run_ids[i]) first[row * n + k] = j;
    if (j == n - 1 || run_ids[i + 1] != run_ids[i]) last[row * n + k] = j;
  }
}

// best[r]: row r's chosen run; its last entry gives the value and index.
template <class T>
__global__ void mode_pick_kernel(const T* x, const int64_t* positions, const int64_t* last, const int64_t* best,
                                 int64_t rows, int64_t n, T* values, int64_t* indices) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int64_t pos = positions[row * n + last[row * n + best[row]]];
  values[row] = x[pos];
  indices[row] = pos - row * n;
}

// One value and index per row: the outputs have size 1 along dim, so row r
// (numbered as rows_along numbers them) is element r of a contiguous output.
template <class Launch>
void per_row(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, const char* op, const Launch& launch) {
  EMBER_CHECK(values.dtype() == in.dtype() && indices.dtype() == kInt64, op,
              ": CUDA kernel called with outputs of dtype ", values.dtype(), " and ", indices.dtype());
  const Tensor x = rows_along(in, dim);
  const int64_t n = in.dim() == 0 ? 1 : in.size(dim);
  EMBER_CHECK(n > 0, op, ": a dim of size 0 has no ", op);
  const int64_t rows = x.numel() / n;
  if (rows == 0) return;
  const Tensor positions = sorted_positions(x, rows, n, false, op);
  Tensor v = values.is_contiguous() ? values : empty(values.sizes(), values.options());
  Tensor ix = indices.is_contiguous() ? indices : empty(indices.sizes(), indices.options());
  const int16_t index = launch_device(in.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  const unsigned blocks = static_cast<unsigned>((rows + kSortThreads - 1) / kSortThreads);
  dispatch_sortable(in.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    launch(static_cast<const T*>(x.data_ptr()), static_cast<const int64_t*>(positions.data_ptr()), rows, n,
           static_cast<T*>(v.data_ptr()), static_cast<int64_t*>(ix.data_ptr()), blocks, stream);
    check_launch(op);
  });
  if (!v.is_same(values)) values.copy_(v);
  if (!ix.is_same(indices)) indices.copy_(ix);
}

// The launches per_row makes once it knows the element type.
struct LaunchSelect {
  SelectOp op;
  int64_t k;
  template <class T>
  void operator()(const T* x, const int64_t* positions, int64_t rows, int64_t n, T* values, int64_t* indices,
                  unsigned blocks, cudaStream_t stream) const {
    select_kernel<T><<<blocks, kSortThreads, 0, stream>>>(x, positions, rows, n, op, k, values, indices);
  }
};
struct LaunchMode {
  Device device;
  template <class T>
  void operator()(const T* x, const int64_t* positions, int64_t rows, int64_t n, T* values, int64_t* indices,
                  unsigned blocks, cudaStream_t stream) const {
    const int64_t total = rows * n;
    const TensorOptions long_opts = TensorOptions(kInt64).device(device);
    Tensor starts = empty({total}, long_opts);
    mode_run_starts_kernel<T><<<sort_grid_for(total), kSortThreads, 0, stream>>>(
        x, positions, total, n, static_cast<int64_t*>(starts.data_ptr()));
    check_launch("mode");
    const Tensor run_ids = cumsum(starts, 0);
    // Unused slots: first 0, last -1, a length of 0.
    Tensor first = zeros({rows, n}, long_opts), last = full({rows, n}, -1, long_opts);
    mode_run_bounds_kernel<<<sort_grid_for(total), kSortThreads, 0, stream>>>(
        static_cast<const int64_t*>(run_ids.data_ptr()), total, n, static_cast<int64_t*>(first.data_ptr()),
        static_cast<int64_t*>(last.data_ptr()));
    check_launch("mode");
    const Tensor best = argmax(last - first, 1).contiguous();  // length - 1; the first maximum
    mode_pick_kernel<T><<<blocks, kSortThreads, 0, stream>>>(x, positions, static_cast<const int64_t*>(last.data_ptr()),
                                                             static_cast<const int64_t*>(best.data_ptr()), rows, n,
                                                             values, indices);
  }
};

constexpr uint32_t kSortable = kMaskReal | kMaskBool;
constexpr uint32_t kCudaSelectOpDTypes[] = {kSortable, kSortable, kSortable};  // kthvalue, median, nanmedian
static_assert(std::size(kCudaSelectOpDTypes) == std::size(kSelectOpNames));

void select_slot_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, SelectOp op, int64_t k) {
  const char* name = kSelectOpNames[static_cast<int>(op)];
  const int64_t n = in.dim() == 0 ? 1 : in.size(dim);
  EMBER_CHECK(op != SelectOp::Kth || (k >= 0 && k < n), name, ": k = ", k + 1, " out of range for a dim of size ",
              n);
  per_row(in, values, indices, dim, name, LaunchSelect{op, k});
}

void mode_slot_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim) {
  per_row(in, values, indices, dim, "mode", LaunchMode{in.device()});
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(select_slot, select_slot_kernel, kSortable);
EMBER_REGISTER_CUDA_OP_DTYPES(select_slot, kCudaSelectOpDTypes);
EMBER_REGISTER_CUDA_KERNEL(mode_slot, mode_slot_kernel, kSortable);

}  // namespace ember::cuda::kernels
