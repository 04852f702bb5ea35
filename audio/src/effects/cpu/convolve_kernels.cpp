// CPU kernel of convolve_slot (effect_kernels.h): the direct sum, rows and
// blocks of output samples in parallel. Where every product exists (the
// outputs ny - 1 .. nx - 1, nx >= ny) a tile of 256 bytes of outputs stays in
// vector registers while the loop runs over the shorter operand: one load
// and one fused multiply-add per 4 (8) products. The edges and what is left
// of a block accumulate in an L1 buffer instead.
#include <algorithm>
#include <array>
#include <utility>

#include "effects/cpu/row_loops.h"
#include "effects/effect_kernels.h"

namespace ember::audio {
namespace {

constexpr int64_t kBlock = 1024;

// out[k] = sum_j x[k - j] * y[j] for k in [k0, k1), k1 - k0 <= kBlock; nx >= ny.
template <class T>
void convolve_block(T* __restrict out, const T* __restrict x, int64_t nx, const T* __restrict y, int64_t ny,
                    int64_t k0, int64_t k1) {
  std::array<T, kBlock> acc{};
  const int64_t j_lo = std::max<int64_t>(0, k0 - nx + 1), j_hi = std::min(ny, k1);
  for (int64_t j = j_lo; j < j_hi; ++j) {
    const int64_t lo = std::max(k0, j), hi = std::min(k1, j + nx);
    const T yj = y[j];
    const T* xs = x + (lo - j);
    T* a = acc.data() + (lo - k0);
    for (int64_t k = 0; k < hi - lo; ++k) a[k] += yj * xs[k];
  }
  std::copy(acc.begin(), acc.begin() + (k1 - k0), out + k0);
}

// The same sums for k in [k0, k1), the interior in register tiles.
template <class T>
void convolve_range(T* __restrict out, const T* __restrict x, int64_t nx, const T* __restrict y, int64_t ny,
                    int64_t k0, int64_t k1) {
  constexpr int64_t kTile = 256 / sizeof(T);
  const int64_t i0 = std::max(k0, ny - 1), i1 = std::min(k1, nx);
  if (i1 - i0 < kTile) {
    convolve_block<T>(out, x, nx, y, ny, k0, k1);
    return;
  }
  if (k0 < i0) convolve_block<T>(out, x, nx, y, ny, k0, i0);
  int64_t k = i0;
  for (; k + kTile <= i1; k += kTile) {
    T acc[kTile] = {};
    for (int64_t j = 0; j < ny; ++j) {
      const T yj = y[j];
      const T* xs = x + (k - j);
      for (int64_t t = 0; t < kTile; ++t) acc[t] += yj * xs[t];
    }
    std::copy(acc, acc + kTile, out + k);
  }
  if (k < k1) convolve_block<T>(out, x, nx, y, ny, k, k1);
}

void convolve_kernel(Tensor& out, const Tensor& x, const Tensor& y) {
  const int64_t rows = x.size(0);
  int64_t nx = x.size(1), ny = y.size(1);
  const int64_t n_out = nx + ny - 1;
  const int64_t blocks = (n_out + kBlock - 1) / kBlock;
  effects::cpu::dispatch_float(x.dtype(), "convolve", [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data_ptr<T>();
    const T* yp = y.data_ptr<T>();
    const int64_t x_stride = nx, y_stride = ny;
    // Convolution commutes: let the longer operand run in the inner loop.
    const bool swap = nx < ny;
    if (swap) std::swap(nx, ny);
    T* o = out.data_ptr<T>();
    effects::cpu::for_each_row(rows * blocks, kBlock * ny, [&](int64_t item) {
      const int64_t r = item / blocks, b = item % blocks;
      const T* xr = xp + r * x_stride;
      const T* yr = yp + r * y_stride;
      if (swap) std::swap(xr, yr);
      convolve_range<T>(o + r * n_out, xr, nx, yr, ny, b * kBlock, std::min(n_out, (b + 1) * kBlock));
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(convolve_slot, CPU, convolve_kernel, kMaskFloat);

}  // namespace ember::audio
