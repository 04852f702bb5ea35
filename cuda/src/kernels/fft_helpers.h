#pragma once
// The small kernels around cuFFT's transforms (fft_helpers.cu), queued on
// `stream`. Buffers are contiguous; `is_double` picks double over float
// (complex data is interleaved: two reals per element).
#include <cuda_runtime_api.h>

#include <cstdint>

namespace ember::cuda::kernels {

// data[i] *= factor for i < count reals.
void fft_scale(void* data, int64_t count, double factor, bool is_double, cudaStream_t stream, const char* op);

// A full spectrum from its first n[rank-1]/2 + 1 bins along the last dim: y is
// complex [batch, n[0], ..., n[rank-1]] (rank 1 to 3) whose entries with last
// index k <= n/2 are set; the others become conj(y[b, -j_0, ..., n - k])
// (indices mod n): the Hermitian symmetry of a real signal's transform.
void fft_fill_conjugate_symmetry(void* y, int64_t batch, const int64_t* n, int rank, bool is_double,
                                 cudaStream_t stream, const char* op);

// x: complex [rows, half] half spectra of real signals of length `length`
// (half = length / 2 + 1): zeroes the imaginary part of bin 0 and, for an even
// length, of bin length / 2, which a real output cannot represent (the CPU's
// c2r ignores them; so does numpy's pocketfft).
void fft_zero_unrepresentable_imag(void* x, int64_t rows, int64_t length, bool is_double, cudaStream_t stream,
                                   const char* op);

}  // namespace ember::cuda::kernels
