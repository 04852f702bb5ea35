// The CUDA kernel of gemm_slot: batched products through cuBLAS
// (cublasGemmStridedBatchedEx), on the current stream.
//
// Note [Row-major products on cuBLAS]
// cuBLAS reads column-major matrices. A row-major out[M, N] (unit column
// stride) is the column-major matrix out^T[N, M], so the product is computed as
// out^T = b^T @ a^T: each operand is passed as itself with op N when its
// transpose is column-major (unit stride along the first index of the
// transpose) and with op T when it is column-major itself. An operand with
// neither unit stride (or a leading dimension cuBLAS refuses) is copied to a
// contiguous tensor first; an output that is not row-major is computed into a
// contiguous one and copied back.
//
// Complex products (complex64, complex128) take the same call with CUDA_C_32F /
// CUDA_C_64F. A conjugate view (Note [Conjugate bit]; gemm_slot receives them
// unresolved) read as a column-major matrix is passed with op C, which
// conjugates what cuBLAS reads; read row-major (op N) it cannot be (op C would
// also transpose), so its values are resolved into new memory first.
#include <atomic>
#include <complex>
#include <mutex>
#include <unordered_map>

#include <cublas_v2.h>
#include <cuComplex.h>

#include "../check.h"
#include "../stream_internal.h"
#include "ember/cuda/blas.h"
#include "ember/ops/factories.h"
#include "kernels/slots/linalg_kernels.h"
#include "register.h"

namespace ember::cuda {
namespace {

std::atomic<bool> g_allow_tf32{false};
constexpr const char* kOp = "matmul (cuBLAS)";

void check_cublas(cublasStatus_t s, const char* call) {
  EMBER_CHECK(s == CUBLAS_STATUS_SUCCESS, kOp, ": ", call, " failed: ", cublasGetStatusName(s), " (",
              cublasGetStatusString(s), ")");
}

// One handle per thread and device (cuBLAS handles are not thread-safe to share).
cublasHandle_t handle_for(int16_t device) {
  thread_local std::unordered_map<int16_t, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  handles.emplace(device, h);
  return h;
}

// How cuBLAS reads matrix X of `rows` x `cols` (row and column strides in
// elements) as the column-major transpose X^T (see the Note): op and leading dim.
struct Operand {
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
};
bool as_transposed_operand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride, Operand& o) {
  // X^T[cols, rows] column-major: unit stride along `cols`, leading dim = row stride.
  if ((col_stride == 1 || cols == 1) && (rows == 1 || row_stride >= std::max<int64_t>(cols, 1))) {
    o = {CUBLAS_OP_N, rows == 1 ? std::max<int64_t>(cols, 1) : row_stride};
    return true;
  }
  // X[rows, cols] column-major: passed as X with op T.
  if ((row_stride == 1 || rows == 1) && (cols == 1 || col_stride >= std::max<int64_t>(rows, 1))) {
    o = {CUBLAS_OP_T, cols == 1 ? std::max<int64_t>(rows, 1) : col_stride};
    return true;
  }
  return false;
}

// A conjugate operand X[rows, cols] that is column-major: passed as X with op C.
bool as_conjugate_operand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride, Operand& o) {
  if ((row_stride == 1 || rows == 1) && (cols == 1 || col_stride >= std::max<int64_t>(rows, 1))) {
    o = {CUBLAS_OP_C, cols == 1 ? std::max<int64_t>(rows, 1) : col_stride};
    return true;
  }
  return false;
}

// How cuBLAS reads operand x[B, rows, cols]; x is replaced by a copy where it cannot read it in place.
void prepare_operand(Tensor& x, int64_t rows, int64_t cols, Operand& o) {
  if (x.is_conj()) {
    if (as_conjugate_operand(rows, cols, x.stride(1), x.stride(2), o)) return;
    x = x.resolve_conj();  // the values, without the bit (Note [Row-major products on cuBLAS])
  }
  if (!as_transposed_operand(rows, cols, x.stride(1), x.stride(2), o)) {
    x = x.contiguous();
    as_transposed_operand(rows, cols, x.stride(1), x.stride(2), o);
  }
}

bool is_zero(const Scalar& s) { return s.toComplexDouble() == std::complex<double>(0, 0); }

void gemm_kernel(const Tensor& a_in, const Tensor& b_in, Tensor& out, const Scalar& beta, const Scalar& alpha) {
  const DType dt = out.dtype();
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a_in.size(2);
  if (B == 0 || M == 0 || N == 0) return;
  if (K == 0) {  // no products: beta * out (beta 0 ignores out, NaN included)
    if (is_zero(beta)) out.fill_(0);
    else out.mul_(beta);
    return;
  }
  Tensor a = a_in, b = b_in;
  Operand oa, ob;
  prepare_operand(a, M, K, oa);
  prepare_operand(b, K, N, ob);
  Tensor c = out;
  Operand oc;
  const bool out_row_major = as_transposed_operand(M, N, out.stride(1), out.stride(2), oc) && oc.op == CUBLAS_OP_N &&
                             (B == 1 || out.stride(0) >= M * N);
  if (!out_row_major) {
    c = empty({B, M, N}, out.options());
    if (!is_zero(beta)) c.copy_(out);
    as_transposed_operand(M, N, c.stride(1), c.stride(2), oc);
  }
  EMBER_CHECK(M <= INT32_MAX && N <= INT32_MAX && K <= INT32_MAX && B <= INT32_MAX && oa.ld <= INT32_MAX &&
                  ob.ld <= INT32_MAX && oc.ld <= INT32_MAX,
              kOp, ": sizes beyond cuBLAS's 32-bit limits (", B, " x ", M, " x ", K, " x ", N, ")");

  const int16_t device = detail::resolve_index(out.device().index, kOp);
  detail::ScopedDevice on(device, kOp);
  cublasHandle_t h = handle_for(device);
  check_cublas(cublasSetStream(h, detail::current_cuda_stream(device)), "cublasSetStream");

  cudaDataType_t type;
  cublasComputeType_t compute;
  switch (dt) {
    case DType::Float32:
      type = CUDA_R_32F;
      compute = g_allow_tf32.load() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case DType::Float64: type = CUDA_R_64F; compute = CUBLAS_COMPUTE_64F; break;
    case DType::Float16: type = CUDA_R_16F; compute = CUBLAS_COMPUTE_32F; break;
    case DType::BFloat16: type = CUDA_R_16BF; compute = CUBLAS_COMPUTE_32F; break;
    case DType::Complex64:
      // TF32 applies to complex64 too, as PyTorch's math mode on its cuBLAS handle.
      type = CUDA_C_32F;
      compute = g_allow_tf32.load() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case DType::Complex128: type = CUDA_C_64F; compute = CUBLAS_COMPUTE_64F; break;
    default: EMBER_FAIL("matmul: no CUDA kernel for ", dt);
  }
  // alpha and beta in the compute type: float (float32, the 16-bit floats), double, or their complex pairs.
  const std::complex<double> alpha_z = alpha.toComplexDouble(), beta_z = beta.toComplexDouble();
  const double alpha_d = alpha_z.real(), beta_d = beta_z.real();
  const float alpha_f = static_cast<float>(alpha_d), beta_f = static_cast<float>(beta_d);
  const cuComplex alpha_c = make_cuComplex(static_cast<float>(alpha_z.real()), static_cast<float>(alpha_z.imag()));
  const cuComplex beta_c = make_cuComplex(static_cast<float>(beta_z.real()), static_cast<float>(beta_z.imag()));
  const cuDoubleComplex alpha_zz = make_cuDoubleComplex(alpha_z.real(), alpha_z.imag());
  const cuDoubleComplex beta_zz = make_cuDoubleComplex(beta_z.real(), beta_z.imag());
  const void* alpha_p = &alpha_f;
  const void* beta_p = &beta_f;
  if (dt == DType::Float64) alpha_p = &alpha_d, beta_p = &beta_d;
  if (dt == DType::Complex64) alpha_p = &alpha_c, beta_p = &beta_c;
  if (dt == DType::Complex128) alpha_p = &alpha_zz, beta_p = &beta_zz;
  // out^T[N, M] = b^T[N, K] @ a^T[K, M] (Note [Row-major products on cuBLAS]).
  check_cublas(cublasGemmStridedBatchedEx(
                   h, ob.op, oa.op, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), alpha_p,
                   b.data_ptr(), type, static_cast<int>(ob.ld), B == 1 ? 0 : b.stride(0), a.data_ptr(), type,
                   static_cast<int>(oa.ld), B == 1 ? 0 : a.stride(0), beta_p, c.data_ptr(), type,
                   static_cast<int>(oc.ld), B == 1 ? M * N : c.stride(0), static_cast<int>(B), compute,
                   CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
  if (!c.is_same(out)) out.copy_(c);
}

}  // namespace

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow); }
bool allow_tf32() { return g_allow_tf32.load(); }

EMBER_REGISTER_CUDA_KERNEL(gemm_slot, gemm_kernel, kMaskFloating | kMaskComplex);

}  // namespace ember::cuda
