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
#include <atomic>
#include <mutex>
#include <unordered_map>

#include <cublas_v2.h>

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

void gemm_kernel(const Tensor& a_in, const Tensor& b_in, Tensor& out, const Scalar& beta, const Scalar& alpha) {
  const DType dt = out.dtype();
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a_in.size(2);
  if (B == 0 || M == 0 || N == 0) return;
  if (K == 0) {  // no products: beta * out (beta 0 ignores out, NaN included)
    if (beta.to<double>() == 0) out.fill_(0);
    else out.mul_(beta);
    return;
  }
  Tensor a = a_in, b = b_in;
  Operand oa, ob;
  if (!as_transposed_operand(M, K, a.stride(1), a.stride(2), oa)) {
    a = a.contiguous();
    as_transposed_operand(M, K, a.stride(1), a.stride(2), oa);
  }
  if (!as_transposed_operand(K, N, b.stride(1), b.stride(2), ob)) {
    b = b.contiguous();
    as_transposed_operand(K, N, b.stride(1), b.stride(2), ob);
  }
  Tensor c = out;
  Operand oc;
  const bool out_row_major = as_transposed_operand(M, N, out.stride(1), out.stride(2), oc) && oc.op == CUBLAS_OP_N &&
                             (B == 1 || out.stride(0) >= M * N);
  if (!out_row_major) {
    c = empty({B, M, N}, out.options());
    if (beta.to<double>() != 0) c.copy_(out);
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
    default: EMBER_FAIL("matmul: no CUDA kernel for ", dt);
  }
  const double alpha_d = alpha.to<double>(), beta_d = beta.to<double>();
  const float alpha_f = static_cast<float>(alpha_d), beta_f = static_cast<float>(beta_d);
  const void* alpha_p = dt == DType::Float64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta_p = dt == DType::Float64 ? static_cast<const void*>(&beta_d) : &beta_f;
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

EMBER_REGISTER_CUDA_KERNEL(gemm_slot, gemm_kernel, kMaskFloating);

}  // namespace ember::cuda
