// TEMPORARY reference implementation of the primitives in fft_exec.h: an
// O(n^2) DFT in double along one dim at a time. The FFT engine replaces this file.
#include "fft/fft_exec.h"

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "ember/ops/factories.h"

namespace ember::fft::detail {
namespace {

using cd = std::complex<double>;

double scale_factor(Scale scale, double n) {
  switch (scale) {
    case Scale::None: return 1.0;
    case Scale::InvSqrtN: return 1.0 / std::sqrt(n);
    case Scale::InvN: return 1.0 / n;
  }
  return 1.0;
}

// DFT of every row of a contiguous complex128 [rows, n] tensor, in place.
void dft_rows(Tensor& t, bool forward) {
  const int64_t n = t.size(-1);
  const int64_t rows = n == 0 ? 0 : t.numel() / n;
  cd* p = t.data_ptr<cd>();
  std::vector<cd> tmp(n);
  const double sign = forward ? -1.0 : 1.0;
  for (int64_t r = 0; r < rows; ++r) {
    cd* row = p + r * n;
    for (int64_t k = 0; k < n; ++k) {
      cd acc = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double a = sign * 2.0 * std::numbers::pi * static_cast<double>((j * k) % n) / n;
        acc += row[j] * cd(std::cos(a), std::sin(a));
      }
      tmp[k] = acc;
    }
    std::copy(tmp.begin(), tmp.end(), row);
  }
}

Tensor dft_along(const Tensor& x, int64_t dim, bool forward) {
  Tensor t = x.movedim(dim, -1).contiguous();
  if (t.data_ptr() == x.data_ptr()) t = t.clone();
  dft_rows(t, forward);
  return t.movedim(-1, dim);
}

}  // namespace

Tensor exec_c2c(const Tensor& in, IntArrayRef dims, Scale scale, bool forward) {
  Tensor x = in.to(kComplex128, /*copy=*/true);
  double n = 1;
  for (int64_t d : dims) {
    x = dft_along(x, d, forward);
    n *= static_cast<double>(in.size(d));
  }
  return (x * scale_factor(scale, n)).to(in.dtype()).contiguous();
}

Tensor exec_r2c(const Tensor& in, IntArrayRef dims, Scale scale, bool onesided) {
  Tensor x = exec_c2c(in.to(kComplex128), dims, scale, true);
  const int64_t last = dims.back();
  if (onesided) x = x.narrow(last, 0, in.size(last) / 2 + 1);
  return x.to(to_complex_dtype(in.dtype())).contiguous();
}

Tensor exec_c2r(const Tensor& in, IntArrayRef dims, Scale scale, int64_t last_dim_size) {
  const int64_t last = dims.back();
  Tensor x = in.to(kComplex128, /*copy=*/true);
  double n = static_cast<double>(last_dim_size);
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    x = dft_along(x, dims[i], false);
    n *= static_cast<double>(in.size(dims[i]));
  }
  // Rebuild the full Hermitian spectrum along the last dim, then invert it.
  Tensor half = x.movedim(last, -1).contiguous();
  DimVector full_sizes(half.sizes());
  full_sizes.back() = last_dim_size;
  Tensor full = zeros(full_sizes, TensorOptions().dtype(kComplex128));
  const int64_t h = half.size(-1), rows = last_dim_size == 0 ? 0 : full.numel() / last_dim_size;
  const cd* src = half.data_ptr<cd>();
  cd* dst = full.data_ptr<cd>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < last_dim_size; ++k) {
      const int64_t m = k < h ? k : last_dim_size - k;
      cd v = m < h ? src[r * h + m] : cd(0);
      if (k >= h) v = std::conj(v);
      if (k == 0 || (last_dim_size % 2 == 0 && k == last_dim_size / 2)) v = cd(v.real(), 0);
      dst[r * last_dim_size + k] = v;
    }
  }
  dft_rows(full, false);
  Tensor out = full.movedim(-1, last).real() * scale_factor(scale, n);
  return out.to(to_real_dtype(in.dtype())).contiguous();
}

}  // namespace ember::fft::detail
