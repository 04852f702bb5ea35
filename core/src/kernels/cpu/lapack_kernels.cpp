// The CPU's dense factorizations: LAPACK (bundled in OpenBLAS) over batches of
// column-major matrices (kernels/slots/lapack_kernels.h).
#include <algorithm>
#include <vector>

#include "kernels/slots/lapack_kernels.h"
#include "runtime/openmp_calls.h"

extern "C" {
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb,
            int* info);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}

namespace ember {
namespace {

template <class T>
struct Lapack;
template <>
struct Lapack<float> {
  static void gesv(int n, int k, float* a, int* ipiv, float* b, int* info) {
    runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
    sgesv_(&n, &k, a, &n, ipiv, b, &n, info);
  }
  static void geqrf(int m, int n, float* a, float* tau, float* work, int lwork, int* info) {
    runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
    sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
  }
  static void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork, int* info) {
    runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
    sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
  }
};
template <>
struct Lapack<double> {
  static void gesv(int n, int k, double* a, int* ipiv, double* b, int* info) {
    runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
    dgesv_(&n, &k, a, &n, ipiv, b, &n, info);
  }
  static void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
    runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
    dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
  }
  static void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
    runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
    dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
  }
};

template <class F>
void dispatch_real(DType t, F&& f) {
  if (t == kFloat32)
    f(float{});
  else
    f(double{});
}

// Workspace size from a LAPACK query (lwork = -1).
template <class T, class Query>
int workspace(Query&& query) {
  T size{};
  int info = 0;
  query(&size, -1, &info);
  return std::max(1, static_cast<int>(size));
}

void solve_kernel(Tensor& a, Tensor& x) {
  const int64_t batches = a.size(0), n = a.size(2), k = x.size(1);
  if (n == 0 || k == 0) return;
  dispatch_real(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<int> ipiv(static_cast<size_t>(n));
    T* pa = a.data_ptr<T>();
    T* px = x.data_ptr<T>();
    for (int64_t b = 0; b < batches; ++b) {
      int info = 0;
      Lapack<T>::gesv(static_cast<int>(n), static_cast<int>(k), pa + b * n * n, ipiv.data(), px + b * n * k, &info);
      EMBER_CHECK(info <= 0, "torch.linalg.solve: The solver failed because the input matrix is singular.");
    }
  });
}

void geqrf_kernel(Tensor& a, Tensor& tau) {
  const int64_t batches = a.size(0), n = a.size(1), m = a.size(2), k = tau.size(1);
  if (m == 0 || n == 0) return;
  dispatch_real(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* pa = a.data_ptr<T>();
    T* pt = tau.data_ptr<T>();
    const int lwork = workspace<T>([&](T* w, int lw, int* info) {
      Lapack<T>::geqrf(static_cast<int>(m), static_cast<int>(n), pa, pt, w, lw, info);
    });
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = 0; b < batches; ++b) {
      int info = 0;
      Lapack<T>::geqrf(static_cast<int>(m), static_cast<int>(n), pa + b * m * n, pt + b * k, work.data(), lwork,
                       &info);
      EMBER_CHECK(info == 0, "geqrf: LAPACK geqrf failed with info = ", info);
    }
  });
}

void orgqr_kernel(Tensor& a, const Tensor& tau) {
  const int64_t batches = a.size(0), n = a.size(1), m = a.size(2), k = tau.size(1);
  if (m == 0 || n == 0) return;
  dispatch_real(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* pa = a.data_ptr<T>();
    const T* pt = tau.data_ptr<T>();
    const int lwork = workspace<T>([&](T* w, int lw, int* info) {
      Lapack<T>::orgqr(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), pa, pt, w, lw, info);
    });
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = 0; b < batches; ++b) {
      int info = 0;
      Lapack<T>::orgqr(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), pa + b * m * n, pt + b * k,
                       work.data(), lwork, &info);
      EMBER_CHECK(info == 0, "linalg.householder_product: LAPACK orgqr failed with info = ", info);
    }
  });
}

constexpr uint32_t kLapackDTypes = dtype_bit(kFloat32) | dtype_bit(kFloat64);

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(linalg_solve_slot, CPU, solve_kernel, kLapackDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(geqrf_slot, CPU, geqrf_kernel, kLapackDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(orgqr_slot, CPU, orgqr_kernel, kLapackDTypes);

}  // namespace ember
