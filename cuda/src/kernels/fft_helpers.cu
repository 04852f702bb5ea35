// The elementwise kernels around cuFFT's transforms (fft_helpers.h).
#include "common.cuh"
#include "fft_helpers.h"

namespace ember::cuda::kernels {
namespace {

template <class R>
__global__ void scale_kernel(R* data, int64_t count, R factor) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    data[i] *= factor;
}

struct Dims3 {
  int64_t n[3];
};

// A thread per entry with last index k >= half (compact numbering: [batch,
// n0, ..., n_{rank-2}, n_last - half]).
template <class R>
__global__ void conjugate_fill_kernel(Complex<R>* y, int64_t total, Dims3 dims, int rank) {
  const int64_t last = dims.n[rank - 1];
  const int64_t half = last / 2 + 1;
  const int64_t upper = last - half;  // entries per row to fill
  int64_t signal = 1;
  for (int d = 0; d < rank; ++d) signal *= dims.n[d];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    int64_t rest = e;
    const int64_t k = half + rest % upper;
    rest /= upper;
    // The other signal dims, innermost first: destination and mirrored source offsets.
    int64_t dst = k, src = last - k, scale = last;
    for (int d = rank - 2; d >= 0; --d) {
      const int64_t j = rest % dims.n[d];
      rest /= dims.n[d];
      const int64_t mirror = j == 0 ? 0 : dims.n[d] - j;
      dst += j * scale;
      src += mirror * scale;
      scale *= dims.n[d];
    }
    const int64_t base = rest * signal;  // rest is now the batch index
    const Complex<R> v = y[base + src];
    y[base + dst] = Complex<R>{v.re, -v.im};
  }
}

template <class R>
__global__ void zero_imag_kernel(Complex<R>* x, int64_t rows, int64_t half, bool even) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += stride) {
    x[r * half].im = R(0);
    if (even) x[r * half + half - 1].im = R(0);
  }
}

}  // namespace

void fft_scale(void* data, int64_t count, double factor, bool is_double, cudaStream_t stream, const char* op) {
  if (count == 0 || factor == 1.0) return;
  if (is_double)
    scale_kernel<double><<<grid_for(count), kThreads, 0, stream>>>(static_cast<double*>(data), count, factor);
  else
    scale_kernel<float><<<grid_for(count), kThreads, 0, stream>>>(static_cast<float*>(data), count,
                                                                  static_cast<float>(factor));
  check_launch(op);
}

void fft_fill_conjugate_symmetry(void* y, int64_t batch, const int64_t* n, int rank, bool is_double,
                                 cudaStream_t stream, const char* op) {
  EMBER_CHECK(rank >= 1 && rank <= 3, op, ": conjugate fill over ", rank, " dims (1 to 3)");
  Dims3 dims{{1, 1, 1}};
  int64_t total = batch;
  for (int d = 0; d < rank; ++d) {
    dims.n[d] = n[d];
    total *= d + 1 < rank ? n[d] : n[d] - (n[d] / 2 + 1);
  }
  if (total == 0) return;
  if (is_double)
    conjugate_fill_kernel<double><<<grid_for(total), kThreads, 0, stream>>>(static_cast<Complex<double>*>(y), total,
                                                                             dims, rank);
  else
    conjugate_fill_kernel<float><<<grid_for(total), kThreads, 0, stream>>>(static_cast<Complex<float>*>(y), total,
                                                                           dims, rank);
  check_launch(op);
}

void fft_zero_unrepresentable_imag(void* x, int64_t rows, int64_t length, bool is_double, cudaStream_t stream,
                                   const char* op) {
  if (rows == 0) return;
  const int64_t half = length / 2 + 1;
  const bool even = length % 2 == 0;
  if (is_double)
    zero_imag_kernel<double><<<grid_for(rows), kThreads, 0, stream>>>(static_cast<Complex<double>*>(x), rows, half,
                                                                       even);
  else
    zero_imag_kernel<float><<<grid_for(rows), kThreads, 0, stream>>>(static_cast<Complex<float>*>(x), rows, half,
                                                                     even);
  check_launch(op);
}

}  // namespace ember::cuda::kernels
