#pragma once
// FFTW (single precision, libfftw3f + libfftw3f_omp) as the fft suite's
// speed ceiling: the fastest widely used CPU FFT, timed next to Ember and
// libtorch for reference only. It is linked into ember_bench alone, never into
// an Ember library. Without FFTW at build time, fftw_ceiling_none.cpp
// implements these functions instead and they return no ceiling.
//
// Each function copies the workload's input into FFTW-aligned buffers and
// plans once (FFTW_MEASURE, ember::get_num_threads() threads) outside the
// timing; the Ceiling's run only executes the plan (and, for stft, frames and
// windows the signal, which is part of the same work in Ember and libtorch).
#include <cstdint>
#include <optional>

#include "bench.h"

namespace ember_bench::fftw {

// Real [n] -> the n / 2 + 1 non-negative frequencies (torch.fft.rfft).
std::optional<Ceiling> rfft(const at::Tensor& x);
// Complex [n] -> [n] (torch.fft.fft).
std::optional<Ceiling> fft(const at::Tensor& x);
// Complex [h, w] -> [h, w] (torch.fft.fft2).
std::optional<Ceiling> fft2(const at::Tensor& x);
// Real [length] -> complex [n_fft / 2 + 1, frames], as torch.stft with
// center=true, pad_mode="reflect", onesided, return_complex and a window of
// n_fft entries: reflect-padded frames are windowed into one buffer and
// transformed by one batched plan (fftwf_plan_many_dft_r2c).
std::optional<Ceiling> stft(const at::Tensor& x, int64_t n_fft, int64_t hop, const at::Tensor& window);

}  // namespace ember_bench::fftw
