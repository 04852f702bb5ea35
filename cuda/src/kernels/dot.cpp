// The CUDA kernel of dot_slot (dot, vdot and the 1-d matmul) for the real
// floating dtypes, through cuBLAS with the result left on the device
// (CUBLAS_POINTER_MODE_DEVICE: no wait for the host). float16 and bfloat16
// go through cublasDotEx accumulating in float32, as PyTorch's CUDA dot.
// Complex operands go to dot_complex (dot_complex.cpp).
#include <cublas_v2.h>

#include "../check.h"
#include "../stream_internal.h"
#include "dot_complex.h"
#include "kernels/slots/linalg_kernels.h"
#include "register.h"

namespace ember::cuda {
namespace {

constexpr const char* kOp = "dot (cuBLAS)";

void check_cublas(cublasStatus_t s, const char* call) { kernels::check_dot_cublas(s, call); }
using kernels::dot_handle_for;

// cuBLAS takes a positive increment: an expanded operand (stride 0) is copied.
Tensor blas_ready(const Tensor& t) { return (t.size(0) > 1 && t.stride(0) <= 0) ? t.contiguous() : t; }
int64_t increment(const Tensor& t) { return t.size(0) <= 1 ? 1 : t.stride(0); }

void dot_kernel(const Tensor& a_in, const Tensor& b_in, Tensor& out, bool conjugate_a) {
  const DType dt = out.dtype();
  if (dt == kComplex64 || dt == kComplex128) return kernels::dot_complex(a_in, b_in, out, conjugate_a);
  EMBER_CHECK(a_in.device() == out.device() && b_in.device() == out.device(), "dot: expected both vectors on ",
              out.device(), ", got ", a_in.device(), " and ", b_in.device());
  const Tensor a = blas_ready(a_in), b = blas_ready(b_in);
  const int64_t n = a.size(0);
  const int16_t device = detail::resolve_index(out.device().index, kOp);
  detail::ScopedDevice on(device, kOp);
  cublasHandle_t h = dot_handle_for(device);
  check_cublas(cublasSetStream(h, detail::current_cuda_stream(device)), "cublasSetStream");
  const int64_t ia = increment(a), ib = increment(b);
  switch (dt) {
    case DType::Float32:
      check_cublas(cublasSdot_64(h, n, static_cast<const float*>(a.data_ptr()), ia,
                                 static_cast<const float*>(b.data_ptr()), ib, static_cast<float*>(out.data_ptr())),
                   "cublasSdot_64");
      return;
    case DType::Float64:
      check_cublas(cublasDdot_64(h, n, static_cast<const double*>(a.data_ptr()), ia,
                                 static_cast<const double*>(b.data_ptr()), ib, static_cast<double*>(out.data_ptr())),
                   "cublasDdot_64");
      return;
    case DType::Float16:
    case DType::BFloat16: {
      const cudaDataType_t type = dt == DType::Float16 ? CUDA_R_16F : CUDA_R_16BF;
      check_cublas(cublasDotEx_64(h, n, a.data_ptr(), type, ia, b.data_ptr(), type, ib, out.data_ptr(), type,
                                  CUDA_R_32F),
                   "cublasDotEx_64");
      return;
    }
    default: EMBER_FAIL("dot: no CUDA kernel for ", dt);
  }
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(dot_slot, dot_kernel, kMaskFloating | kMaskComplex);

}  // namespace ember::cuda
