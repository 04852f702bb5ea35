#pragma once
// The four-step FFT of a long signal, n = n1 * n2 (Bailey): viewing x as an
// n1 x n2 row-major matrix,
//   1. FFT each of the n2 columns (length n1),
//   2. multiply entry (k1, j2) by W_n^(j2 k1),
//   3. FFT each of the n1 rows (length n2); X[k1 + n1 k2] = row k1's bin k2.
// Both batches run kLanes columns/rows at a time through lane plans whose
// buffers fit in cache, and split across threads. Adjacent columns are
// adjacent in memory, so step 1 reads whole cache lines; the intermediate
// matrix is kept in lane layout by column block, and step 3 transposes kLanes x kLanes tiles out of it.
#include <algorithm>
#include <complex>

#include "kernels/cpu/fft/parallel_blocks.h"
#include "kernels/cpu/fft/lane_io.h"
#include "kernels/cpu/fft/plan.h"
#include "kernels/cpu/fft/scratch.h"
#include "kernels/cpu/fft/stockham.h"

namespace ember::fft::detail {

template <class T, class Load, class Store>
void run_four_step(const Plan<T>& p, const Load& load, const Store& store) {
  constexpr int L = kLanes<T>;
  constexpr int64_t E = kElemStride<T>;
  const int64_t n1 = p.n1, n2 = p.n2;
  const int64_t col_blocks = (n2 + L - 1) / L, row_blocks = (n1 + L - 1) / L;
  const int64_t lane_elems = std::max(n1, n2);
  T* mat = scratch<T>(Slot::FourStep, col_blocks * n1 * E);
  const int64_t min_blocks = p.n >= kParallelMinElements ? 2 : INT64_MAX;

  // Steps 1 and 2: columns j2 = cb L + l.
  parallel_blocks(col_blocks, min_blocks, [&](int64_t cb) {
    T* a = scratch<T>(Slot::LaneA, lane_elems * E);
    T* b = scratch<T>(Slot::LaneB, lane_elems * E);
    {
      if (cb * L + L <= n2) {
        for (int64_t j1 = 0; j1 < n1; ++j1) {
          prefetch_run(load, (j1 + kPrefetchAhead) * n2 + cb * L, false);
          load_run<T>(load, j1 * n2 + cb * L).store(a + j1 * E);
        }
      } else {
        int64_t j2[L];
        for (int l = 0; l < L; ++l) j2[l] = std::min(cb * L + l, n2 - 1);  // pad with a real column
        for (int64_t j1 = 0; j1 < n1; ++j1) {
          T* e = a + j1 * E;
          for (int l = 0; l < L; ++l) {
            const std::complex<T> v = load(j1 * n2 + j2[l]);
            e[l] = v.real();
            e[L + l] = v.imag();
          }
        }
      }
      const T* r = run_lane_passes(p.col, a, b);
      T* dst = mat + cb * n1 * E;
      const std::complex<T>* tw_block = p.tw_block.data() + cb * n1;
      for (int64_t k1 = 0; k1 < n1; ++k1) {
        const CV<T> w = CV<T>::load(p.tw_lane.data() + k1 * E).mul(tw_block[k1]);
        CV<T>::load(r + k1 * E).mul(w).store(dst + k1 * E);
      }
    }
  });

  // Step 3: rows k1 = rb L + l.
  parallel_blocks(row_blocks, min_blocks, [&](int64_t rb) {
    T* a = scratch<T>(Slot::LaneA, lane_elems * E);
    T* b = scratch<T>(Slot::LaneB, lane_elems * E);
    {
      const int valid = static_cast<int>(std::min<int64_t>(L, n1 - rb * L));
      int64_t k1[L];
      for (int l = 0; l < L; ++l) k1[l] = rb * L + std::min(l, valid - 1);
      for (int64_t cb = 0; cb < col_blocks; ++cb) {
        const int cols = static_cast<int>(std::min<int64_t>(L, n2 - cb * L));
        T* dst = a + cb * L * E;
        if (cols == L) {
          // Two kLanes x kLanes transposes (real and imaginary parts).
          simd::RawV<T> re[L], im[L];
          for (int l = 0; l < L; ++l) {
            const T* src = mat + (cb * n1 + k1[l]) * E;
            re[l] = simd::loadu(src);
            im[l] = simd::loadu(src + L);
          }
          simd::transpose(re);
          simd::transpose(im);
          for (int jj = 0; jj < L; ++jj) {
            simd::storeu(dst + jj * E, re[jj]);
            simd::storeu(dst + jj * E + L, im[jj]);
          }
          continue;
        }
        for (int l = 0; l < L; ++l) {
          const T* src = mat + (cb * n1 + k1[l]) * E;
          for (int jj = 0; jj < cols; ++jj) {
            dst[jj * E + l] = src[jj];
            dst[jj * E + L + l] = src[L + jj];
          }
        }
      }
      const T* r = run_lane_passes(p.row, a, b);
      if (valid == L) {
        for (int64_t k2 = 0; k2 < n2; ++k2) {
          prefetch_run(store, rb * L + n1 * (k2 + kPrefetchAhead), true);
          store_run<T>(store, rb * L + n1 * k2, CV<T>::load(r + k2 * E));
        }
      } else {
        for (int64_t k2 = 0; k2 < n2; ++k2) {
          const T* e = r + k2 * E;
          for (int l = 0; l < valid; ++l) store(k1[l] + n1 * k2, std::complex<T>(e[l], e[L + l]));
        }
      }
    }
  });
}

}  // namespace ember::fft::detail
