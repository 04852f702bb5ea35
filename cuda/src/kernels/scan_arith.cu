// CUDA cumsum and cumprod (scan_slot; logcumsumexp is in scan_log_minmax.cu),
// on the scan engine (scan.cuh, Note [CUDA scans]). Accumulation as the CPU
// kernel's (kernels/cpu/scan_kernels.cpp): double for float32 and float64,
// float for float16/bfloat16, wrapping int64 for integers and bool, each
// partial result converted to the output dtype as it is stored.
#include <limits>

#include "math.cuh"
#include "kernels/slots/scan_kernels.h"
#include "register.h"
#include "scan.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T>
using scan_acc_t = std::conditional_t<
    std::is_same_v<T, float>, double,
    std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float,
                       std::conditional_t<std::is_integral_v<T>, int64_t, T>>>;

template <class T, bool IsProd>
struct SumProdOps {
  using acc_t = scan_acc_t<T>;
  const T* in;
  T* out;
  __device__ acc_t identity() const { return IsProd ? acc_t(1) : acc_t(0); }
  __device__ acc_t load(int64_t off, int64_t) const { return convert<acc_t>(in[off]); }
  __device__ acc_t combine(acc_t a, acc_t b) const { return IsProd ? wrapping_mul(a, b) : wrapping_add(a, b); }
  __device__ void store(int64_t off, acc_t a) const { out[off] = convert<T>(a); }
};

// What each scan computes on CUDA: cumsum and cumprod every real dtype and
// bool, logcumsumexp the floating ones (the CPU's, less complex).
constexpr uint32_t kCudaScanOpDTypes[] = {kMaskReal | kMaskBool, kMaskReal | kMaskBool, kMaskFloating};
static_assert(std::size(kCudaScanOpDTypes) == std::size(kScanOpNames));

void scan_kernel(const Tensor& in, Tensor& out, int64_t dim, ScanOp op) {
  const char* name = kScanOpNames[static_cast<int>(op)];
  EMBER_CHECK((kCudaScanOpDTypes[static_cast<int>(op)] & dtype_bit(in.dtype())) != 0, name,
              ": no CUDA kernel for ", in.dtype());
  EMBER_CHECK(in.dtype() == out.dtype() && in.is_contiguous() && out.is_contiguous(), name,
              ": the CUDA scan takes a contiguous input and output of one dtype (got ", in.dtype(), " and ",
              out.dtype(), ")");
  if (op == ScanOp::LogSumExp) return logcumsumexp_kernel(in, out, dim);
  const ScanGeometry g(in, dim);
  dispatch_real_bool(in.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    if (op == ScanOp::Prod) run_scan(SumProdOps<T, true>{src, dst}, g.outer, g.n, g.inner, in.device(), name);
    else run_scan(SumProdOps<T, false>{src, dst}, g.outer, g.n, g.inner, in.device(), name);
  });
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(scan_slot, scan_kernel, kMaskReal | kMaskBool);
EMBER_REGISTER_CUDA_OP_DTYPES(scan_slot, kCudaScanOpDTypes);

}  // namespace ember::cuda::kernels
