#pragma once
// Blocked matrix product for the types BLAS has no routine for (integers,
// float16, bfloat16). Accumulates in uint64_t for integers (two's complement
// wrap-around, so overflow behaves as PyTorch's int64 arithmetic without UB)
// and in float for the 16-bit floats. Included by blas_kernels.cpp only.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/core/tensor.h"

namespace ember {

template <class T>
using gemm_loop_acc_t = std::conditional_t<std::is_integral_v<T>, uint64_t, float>;

// out[i] = beta * out[i] + alpha * a[i] @ b[i] over [B, M, K] x [B, K, N].
template <class T>
void gemm_loop(const Tensor& a, const Tensor& b, const Tensor& out, const Scalar& beta_s,
               const Scalar& alpha_s) {
  using Acc = gemm_loop_acc_t<T>;
  // Integer coefficients go through int64 so negative values wrap correctly.
  auto coefficient = [](const Scalar& s) {
    if constexpr (std::is_integral_v<T>) return static_cast<Acc>(s.to<int64_t>());
    else return s.to<Acc>();
  };
  const Acc beta = coefficient(beta_s), alpha = coefficient(alpha_s);
  const bool beta_zero = beta_s.toComplexDouble() == complex128(0, 0);
  const int64_t nb = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = out.data_ptr<T>();
  const int64_t as0 = a.stride(0), as1 = a.stride(1), as2 = a.stride(2);
  const int64_t bs0 = b.stride(0), bs1 = b.stride(1), bs2 = b.stride(2);
  const int64_t cs0 = out.stride(0), cs1 = out.stride(1), cs2 = out.stride(2);

  // Tiles: a [kMc x kKc] block of a times a packed [kKc x kNc] block of b,
  // accumulated into a [kMc x kNc] buffer that stays in cache.
  constexpr int64_t kMc = 64, kKc = 256, kNc = 512;
  const int64_t row_blocks = (m + kMc - 1) / kMc;
  const int64_t work_per_block = std::max<int64_t>(1, std::min(m, kMc) * n * k);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / work_per_block);
  parallel_for(0, nb * row_blocks, grain, [&](int64_t begin, int64_t end) {
    std::vector<Acc> packed(static_cast<size_t>(std::min(k, kKc) * std::min(n, kNc)));
    std::vector<Acc> acc(static_cast<size_t>(std::min(m, kMc) * std::min(n, kNc)));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t batch = task / row_blocks;
      const int64_t i0 = (task % row_blocks) * kMc, i1 = std::min(m, i0 + kMc);
      const T* ab = pa + batch * as0;
      const T* bb = pb + batch * bs0;
      T* cb = pc + batch * cs0;
      for (int64_t j0 = 0; j0 < n; j0 += kNc) {
        const int64_t nj = std::min(n, j0 + kNc) - j0;
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t k0 = 0; k0 < k; k0 += kKc) {
          const int64_t nk = std::min(k, k0 + kKc) - k0;
          for (int64_t kk = 0; kk < nk; ++kk)
            for (int64_t j = 0; j < nj; ++j)
              packed[kk * nj + j] = static_cast<Acc>(bb[(k0 + kk) * bs1 + (j0 + j) * bs2]);
          for (int64_t i = i0; i < i1; ++i) {
            Acc* __restrict row = acc.data() + (i - i0) * nj;
            for (int64_t kk = 0; kk < nk; ++kk) {
              const Acc av = static_cast<Acc>(ab[i * as1 + (k0 + kk) * as2]);
              const Acc* __restrict prow = packed.data() + kk * nj;
              for (int64_t j = 0; j < nj; ++j) row[j] += av * prow[j];
            }
          }
        }
        for (int64_t i = i0; i < i1; ++i) {
          const Acc* row = acc.data() + (i - i0) * nj;
          for (int64_t j = 0; j < nj; ++j) {
            T& c = cb[i * cs1 + (j0 + j) * cs2];
            const Acc prev = beta_zero ? Acc(0) : beta * static_cast<Acc>(c);
            c = static_cast<T>(prev + alpha * row[j]);
          }
        }
      }
    }
  });
}

// sum_i a[i] * b[i] in the accumulation type of gemm_loop.
template <class T>
T dot_loop(const Tensor& a, const Tensor& b) {
  using Acc = gemm_loop_acc_t<T>;
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  const int64_t sa = a.stride(0), sb = b.stride(0), n = a.size(0);
  Acc sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<Acc>(pa[i * sa]) * static_cast<Acc>(pb[i * sb]);
  return static_cast<T>(sum);
}

}  // namespace ember
