// The complex half of the CUDA dot_slot kernel: dot and vdot of complex64 and
// complex128 vectors through cuBLAS's ?dotu / ?dotc, the result written by
// cuBLAS straight into the output's device memory (pointer mode device: no
// wait for the GPU, as PyTorch's dot on CUDA).
#include <climits>
#include <unordered_map>

#include <cublas_v2.h>
#include <cuComplex.h>

#include "../check.h"
#include "../stream_internal.h"
#include "dot_complex.h"
#include "ember/ops/factories.h"
#include "kernels/slots/linalg_kernels.h"
#include "register.h"

namespace ember::cuda::kernels {

void check_dot_cublas(cublasStatus_t s, const char* call) {
  EMBER_CHECK(s == CUBLAS_STATUS_SUCCESS, "dot (cuBLAS): ", call, " failed: ", cublasGetStatusName(s), " (",
              cublasGetStatusString(s), ")");
}

cublasHandle_t dot_handle_for(int16_t device) {
  thread_local std::unordered_map<int16_t, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t h = nullptr;
  check_dot_cublas(cublasCreate(&h), "cublasCreate");
  check_dot_cublas(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  handles.emplace(device, h);
  return h;
}

namespace {

constexpr const char* kOp = "dot (cuBLAS)";

void check_cublas(cublasStatus_t s, const char* call) { check_dot_cublas(s, call); }

// A vector cuBLAS can read in place: a positive stride that fits an int
// (one element reads the same with any stride). Others (expanded, stride 0)
// are copied, their conjugate bit resolved on the way.
Tensor blas_ready(const Tensor& t) {
  const int64_t s = t.size(0) <= 1 ? 1 : t.stride(0);
  if (s >= 1 && s <= INT_MAX) return t;
  return t.resolve_conj().contiguous();
}
int blas_stride(const Tensor& t) { return t.size(0) <= 1 ? 1 : static_cast<int>(t.stride(0)); }

// result = sum(op(x) * y) over n elements (op conjugates when conj_x).
void dot_call(cublasHandle_t h, DType dt, int n, const void* x, int incx, const void* y, int incy, void* result,
              bool conj_x) {
  if (dt == kComplex64) {
    auto* px = static_cast<const cuComplex*>(x);
    auto* py = static_cast<const cuComplex*>(y);
    auto* r = static_cast<cuComplex*>(result);
    if (conj_x) check_cublas(cublasCdotc(h, n, px, incx, py, incy, r), "cublasCdotc");
    else check_cublas(cublasCdotu(h, n, px, incx, py, incy, r), "cublasCdotu");
  } else {
    auto* px = static_cast<const cuDoubleComplex*>(x);
    auto* py = static_cast<const cuDoubleComplex*>(y);
    auto* r = static_cast<cuDoubleComplex*>(result);
    if (conj_x) check_cublas(cublasZdotc(h, n, px, incx, py, incy, r), "cublasZdotc");
    else check_cublas(cublasZdotu(h, n, px, incx, py, incy, r), "cublasZdotu");
  }
}

}  // namespace

void dot_complex(const Tensor& a_in, const Tensor& b_in, Tensor& out, bool conjugate_a) {
  const DType dt = out.dtype();
  EMBER_CHECK(dt == kComplex64 || dt == kComplex128, "dot: dot_complex takes complex tensors, got ", dt);
  EMBER_CHECK(a_in.dtype() == dt && b_in.dtype() == dt, "dot: expected both vectors to have dtype ", dt, ", but got ",
              a_in.dtype(), " and ", b_in.dtype());
  EMBER_CHECK(a_in.dim() == 1 && b_in.dim() == 1 && a_in.size(0) == b_in.size(0), "dot: expected two 1-d tensors of ",
              "one length, got shapes ", a_in.sizes(), " and ", b_in.sizes());
  EMBER_CHECK(out.dim() == 0 && out.is_contiguous() && !out.impl()->has_lazy_bits(), "dot: the output must be a ",
              "plain 0-d tensor");
  const int64_t n = a_in.size(0);
  if (n == 0) {
    out.zero_();
    return;
  }
  Tensor a = blas_ready(a_in), b = blas_ready(b_in);
  // Note [Conjugate bit], as the CPU kernel: with ca = conjugate_a xor a's bit
  // and cb = b's bit, sum(a b) = dotu(a, b), sum(conj(a) b) = dotc(a, b),
  // sum(a conj(b)) = dotc(b, a); sum(conj(a) conj(b)) = dotc(a, conj(b))
  // with b's conjugate resolved (cuBLAS has no conjugate of the result).
  const bool ca = conjugate_a != a.is_conj(), cb = b.is_conj();
  bool conj_first = ca;
  if (cb && !ca) {
    std::swap(a, b);
    conj_first = true;
  } else if (cb && ca) {
    b = b.resolve_conj().contiguous();
  }
  const int16_t device = detail::resolve_index(out.device().index, kOp);
  detail::ScopedDevice on(device, kOp);
  cublasHandle_t h = dot_handle_for(device);
  check_cublas(cublasSetStream(h, detail::current_cuda_stream(device)), "cublasSetStream");
  const int sa = blas_stride(a), sb = blas_stride(b);
  const size_t elem = element_size(dt);
  const char* pa = static_cast<const char*>(a.data_ptr());
  const char* pb = static_cast<const char*>(b.data_ptr());
  constexpr int64_t kChunk = int64_t{1} << 30;  // cuBLAS counts are int
  if (n <= kChunk) {
    dot_call(h, dt, static_cast<int>(n), pa, sa, pb, sb, out.data_ptr(), conj_first);
    return;
  }
  // Longer vectors: one partial result per chunk, summed on the GPU.
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  Tensor partial = empty({chunks}, TensorOptions(dt).device(out.device()));
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t i = c * kChunk;
    const int len = static_cast<int>(std::min(kChunk, n - i));
    dot_call(h, dt, len, pa + i * sa * static_cast<int64_t>(elem), sa, pb + i * sb * static_cast<int64_t>(elem), sb,
             static_cast<char*>(partial.data_ptr()) + c * static_cast<int64_t>(elem), conj_first);
  }
  out.copy_(partial.sum());
}

}  // namespace ember::cuda::kernels
