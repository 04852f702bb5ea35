// The host side of the CUDA index bound checks (Note [CUDA index bound
// checks]) and the deterministic sorted accumulation (Note [Sorted
// accumulation]), both in index_common.cuh.
#include "ember/ops/factories.h"
#include "index_common.cuh"

namespace ember::cuda::kernels {

IndexErrorFlag::IndexErrorFlag(Device device, const char* op) : op_(op) {
  buffer_ = empty({2}, TensorOptions(kInt64).device(device));
  const int16_t index = launch_device(device);
  EMBER_CUDA_CHECK(cudaMemsetAsync(buffer_.data_ptr(), 0, 2 * sizeof(int64_t), detail::current_cuda_stream(index)), op);
}

void IndexErrorFlag::raise_if_set(const IndexBound& b) const {
  const int16_t index = launch_device(buffer_.device());
  detail::ScopedDevice on(index, op_);
  cudaStream_t stream = detail::current_cuda_stream(index);
  int64_t host[2] = {0, 0};
  EMBER_CUDA_CHECK(cudaMemcpyAsync(host, buffer_.data_ptr(), sizeof(host), cudaMemcpyDeviceToHost, stream), op_);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream), op_);
  if (host[0] != 0)
    EMBER_FAIL(b.op, ": index ", host[1], " is out of bounds for dimension ", b.dim, " with size ", b.size);
}

int64_t read_int64(const int64_t* device_ptr, cudaStream_t stream, const char* op) {
  int64_t v = 0;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(&v, device_ptr, sizeof(v), cudaMemcpyDeviceToHost, stream), op);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream), op);
  return v;
}

namespace {

// One thread per run of equal keys (its first element), applying the run's
// writes in their (stable-sorted) order.
template <ScatterOp Op, class T>
__global__ void sorted_runs_kernel(T* dst, const char* src, T constant, const int64_t* keys, const int64_t* value_off,
                                   int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const int64_t key = keys[t];
    if (t > 0 && keys[t - 1] == key) continue;
    int64_t end = t + 1;
    while (end < n && keys[end] == key) ++end;
    auto value = [&](int64_t j) { return src ? *reinterpret_cast<const T*>(src + value_off[j]) : constant; };
    if constexpr (Op == ScatterOp::Assign) {
      dst[key] = value(end - 1);
    } else {
      T acc = dst[key];
      for (int64_t j = t; j < end; ++j) acc = combine<Op>(acc, value(j));
      dst[key] = acc;
    }
  }
}

}  // namespace

void sorted_accumulate(DType dtype, ScatterOp op, char* dst, const char* src, const Scalar& constant, Tensor& keys,
                       Tensor& value_off, int64_t n, int16_t device, cudaStream_t stream, const char* op_name) {
  (void)device;
  if (n == 0) return;
  EMBER_CHECK(op == ScatterOp::Add || op == ScatterOp::Assign, op_name, ": no sorted CUDA kernel for reduction ",
              kScatterOpNames[static_cast<int>(op)]);
  Tensor sorted_keys = empty_like(keys), sorted_off = empty_like(value_off);
  sort_pairs_int64(keys, sorted_keys, value_off, sorted_off, n, stream, op_name);
  const auto* k = static_cast<const int64_t*>(sorted_keys.data_ptr());
  const auto* v = static_cast<const int64_t*>(sorted_off.data_ptr());
  dispatch_all(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T c = src ? T{} : device_value<T>(constant);
    if (op == ScatterOp::Add)
      sorted_runs_kernel<ScatterOp::Add, T><<<grid_for(n), kThreads, 0, stream>>>(reinterpret_cast<T*>(dst), src, c, k, v, n);
    else
      sorted_runs_kernel<ScatterOp::Assign, T><<<grid_for(n), kThreads, 0, stream>>>(reinterpret_cast<T*>(dst), src, c, k, v, n);
  });
  check_launch(op_name);
}

}  // namespace ember::cuda::kernels
