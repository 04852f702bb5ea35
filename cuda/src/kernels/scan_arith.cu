// CUDA cumsum and cumprod (scan_slot; logcumsumexp is in scan_log_minmax.cu),
// on the scan engine (scan.cuh, Note [CUDA scans]). Accumulation as the CPU
// kernel's (kernels/cpu/scan_kernels.cpp): double for float32 and float64,
// float for float16/bfloat16, wrapping int64 for integers and bool,
// complex128 for both complex dtypes, each partial result converted to the
// output dtype as it is stored. Complex products use the textbook formula;
// the CPU's std::complex product (C99 Annex G) recovers some inf/NaN cases
// differently, so only those edge values may differ.
#include <limits>

#include "math.cuh"
#include "kernels/slots/scan_kernels.h"
#include "register.h"
#include "scan.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T>
inline constexpr bool is_complex_v = std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>;

template <class T>
using scan_acc_t = std::conditional_t<
    std::is_same_v<T, float>, double,
    std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float,
                       std::conditional_t<is_complex_v<T>, Complex<double>,
                                          std::conditional_t<std::is_integral_v<T>, int64_t, T>>>>;

template <class T, bool IsProd>
struct SumProdOps {
  using acc_t = scan_acc_t<T>;
  const T* in;
  T* out;
  __device__ acc_t identity() const {
    if constexpr (is_complex_v<T>) return acc_t{IsProd ? 1.0 : 0.0, 0.0};
    else return IsProd ? acc_t(1) : acc_t(0);
  }
  __device__ acc_t load(int64_t off, int64_t) const { return convert<acc_t>(in[off]); }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if constexpr (is_complex_v<T>) {
      if constexpr (IsProd) return acc_t{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
      else return acc_t{a.re + b.re, a.im + b.im};
    } else {
      return IsProd ? wrapping_mul(a, b) : wrapping_add(a, b);
    }
  }
  __device__ void store(int64_t off, acc_t a) const { out[off] = convert<T>(a); }
};

// What each scan computes on CUDA, as the CPU: cumsum and cumprod every
// dtype, logcumsumexp the floating ones.
constexpr uint32_t kCudaScanOpDTypes[] = {kMaskAll, kMaskAll, kMaskFloating};
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
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    if (op == ScanOp::Prod) run_scan(SumProdOps<T, true>{src, dst}, g.outer, g.n, g.inner, in.device(), name);
    else run_scan(SumProdOps<T, false>{src, dst}, g.outer, g.n, g.inner, in.device(), name);
  });
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(scan_slot, scan_kernel, kMaskAll);
EMBER_REGISTER_CUDA_OP_DTYPES(scan_slot, kCudaScanOpDTypes);

}  // namespace ember::cuda::kernels
