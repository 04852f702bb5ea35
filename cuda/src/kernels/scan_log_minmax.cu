// CUDA logcumsumexp (scan_slot's third op, called from scan_arith.cu) and
// cummax/cummin with their indices (cum_min_max_slot), on the scan engine
// (scan.cuh, Note [CUDA scans]).
#include <limits>

#include "math.cuh"
#include "kernels/slots/scan_kernels.h"
#include "register.h"
#include "scan.cuh"

namespace ember::cuda::kernels {
namespace {

// log(exp(x) + exp(acc)) as the CPU kernel's log_add_exp (PyTorch's
// _log_add_exp_helper), std::min/std::max spelled out: a NaN accumulator
// stays NaN, two infinities of one sign give that infinity.
template <class A>
__device__ __forceinline__ A log_add_exp(A x, A acc) {
  const bool acc_nan = acc != acc;
  const A lo = acc_nan ? acc : (acc < x ? acc : x);
  const A hi = acc_nan ? acc : (x < acc ? acc : x);
  if (lo != hi || isfinite(lo)) {
    if constexpr (std::is_same_v<A, float>) return hi + log1pf(expf(lo - hi));
    else return hi + log1p(exp(lo - hi));
  }
  return x;
}

// Accumulates in double for float32 and float64, float for the 16-bit floats (the CPU's).
template <class T>
struct LogSumExpOps {
  using acc_t = std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float, double>;
  const T* in;
  T* out;
  __device__ acc_t identity() const { return -std::numeric_limits<acc_t>::infinity(); }
  __device__ acc_t load(int64_t off, int64_t) const { return convert<acc_t>(in[off]); }
  __device__ acc_t combine(acc_t a, acc_t b) const { return log_add_exp(b, a); }
  __device__ void store(int64_t off, acc_t a) const { out[off] = convert<T>(a); }
};

// A running extreme and where it was last attained; index -1: no element yet.
template <class C>
struct ValueAt {
  C value;
  int64_t index;
};

// cummax/cummin: ties move the index to the later position; the first NaN
// sticks (PyTorch's and the CPU's rule). combine(earlier, later) with `later`
// the running result of a later stretch gives what the serial walk gives.
template <class T>
struct CumMinMaxOps {
  using C = compute_t<T>;
  using acc_t = ValueAt<C>;
  const T* in;
  T* values;
  int64_t* indices;
  bool is_max;
  __device__ acc_t identity() const { return {C(0), -1}; }
  __device__ acc_t load(int64_t off, int64_t pos) const { return {convert<C>(in[off]), pos}; }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    if (is_nan(a.value)) return a;
    if (is_nan(b.value)) return b;
    return (is_max ? b.value >= a.value : b.value <= a.value) ? b : a;
  }
  __device__ void store(int64_t off, acc_t a) const {
    values[off] = convert<T>(a.value);
    indices[off] = a.index;
  }
};

void cum_min_max_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool is_max) {
  const char* name = kCumMinMaxOpNames[is_max ? 1 : 0];
  EMBER_CHECK(in.is_contiguous() && values.is_contiguous() && indices.is_contiguous() &&
                  values.dtype() == in.dtype() && indices.dtype() == kInt64,
              name, ": the CUDA kernel takes a contiguous input and outputs (values ", in.dtype(), ", indices int64)");
  const ScanGeometry g(in, dim);
  dispatch_real_bool(in.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    run_scan(CumMinMaxOps<T>{static_cast<const T*>(in.data_ptr()), static_cast<T*>(values.data_ptr()),
                             static_cast<int64_t*>(indices.data_ptr()), is_max},
             g.outer, g.n, g.inner, in.device(), name);
  });
}

constexpr uint32_t kCudaCumMinMaxOpDTypes[] = {kMaskReal | kMaskBool, kMaskReal | kMaskBool};  // cummin, cummax
static_assert(std::size(kCudaCumMinMaxOpDTypes) == std::size(kCumMinMaxOpNames));

}  // namespace

void logcumsumexp_kernel(const Tensor& in, Tensor& out, int64_t dim) {
  const ScanGeometry g(in, dim);
  dispatch_real_bool(in.dtype(), "logcumsumexp", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_float_v<compute_t<T>>)
      run_scan(LogSumExpOps<T>{static_cast<const T*>(in.data_ptr()), static_cast<T*>(out.data_ptr())}, g.outer,
               g.n, g.inner, in.device(), "logcumsumexp");
    else EMBER_CHECK(false, "logcumsumexp: no CUDA kernel for ", in.dtype());
  });
}

EMBER_REGISTER_CUDA_KERNEL(cum_min_max_slot, cum_min_max_kernel, kMaskReal | kMaskBool);
EMBER_REGISTER_CUDA_OP_DTYPES(cum_min_max_slot, kCudaCumMinMaxOpDTypes);

}  // namespace ember::cuda::kernels
