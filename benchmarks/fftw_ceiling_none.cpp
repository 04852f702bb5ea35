// The fft suite without FFTW (not found at build time): no ceilings.
#include "fftw_ceiling.h"

namespace ember_bench::fftw {

std::optional<Ceiling> rfft(const at::Tensor&) { return std::nullopt; }
std::optional<Ceiling> fft(const at::Tensor&) { return std::nullopt; }
std::optional<Ceiling> fft2(const at::Tensor&) { return std::nullopt; }
std::optional<Ceiling> stft(const at::Tensor&, int64_t, int64_t, const at::Tensor&) { return std::nullopt; }

}  // namespace ember_bench::fftw
