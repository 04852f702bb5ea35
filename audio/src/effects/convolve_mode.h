#pragma once
// What fftconvolve and convolve share (torchaudio 2.0's functional.py):
// operand checks and the "full" / "valid" / "same" cut of the full result.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::audio::effects {

enum class ConvolveMode { Full, Valid, Same };

ConvolveMode parse_convolve_mode(const std::string& mode, const char* op);
// x [..., N] and y [..., M]: float32/float64, the same number of dims (>= 1),
// N, M >= 1, each leading dim equal or 1 in one of them. Returns the
// broadcast leading shape.
std::vector<int64_t> check_convolve_operands(const Tensor& x, const Tensor& y, const char* op);
// The centered part of the full result [..., x_length + y_length - 1] that
// `mode` keeps: all, max - min + 1 samples, or x_length samples.
Tensor apply_convolve_mode(const Tensor& full, int64_t x_length, int64_t y_length, ConvolveMode mode);

}  // namespace ember::audio::effects
