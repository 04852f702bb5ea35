#pragma once
// A small radix-2 FFT for vad's measurements (power-of-two lengths from 8
// up), in double with a precomputed twiddle table. vad rounds its spectra to
// float32, as torchaudio's float32 torch.fft.rfft does, so double here is
// more than enough; core's FFT plans live behind core's own kernel slots.
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <vector>

namespace ember::audio::effects::cpu {

class Radix2Fft {
 public:
  explicit Radix2Fft(int64_t n) : n_(n), twiddles_(static_cast<size_t>(n / 2)) {
    for (int64_t k = 0; k < n / 2; ++k) {
      const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
      twiddles_[static_cast<size_t>(k)] = {std::cos(angle), std::sin(angle)};
    }
  }
  int64_t size() const { return n_; }

  // a (n values) <- its DFT, sum_t a[t] exp(-2 pi i k t / n).
  void forward(std::vector<std::complex<double>>& a) const {
    const int64_t n = n_;
    for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[static_cast<size_t>(i)], a[static_cast<size_t>(j)]);
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t half = len / 2, stride = n / len;
      for (int64_t start = 0; start < n; start += len) {
        for (int64_t k = 0; k < half; ++k) {
          const std::complex<double> u = a[static_cast<size_t>(start + k)];
          const std::complex<double> v = a[static_cast<size_t>(start + k + half)] * twiddles_[static_cast<size_t>(k * stride)];
          a[static_cast<size_t>(start + k)] = u + v;
          a[static_cast<size_t>(start + k + half)] = u - v;
        }
      }
    }
  }

 private:
  int64_t n_;
  std::vector<std::complex<double>> twiddles_;
};

}  // namespace ember::audio::effects::cpu
