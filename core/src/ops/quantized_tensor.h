#pragma once
// Internal helpers for quantized tensors (Note [Quantized tensors] in
// core/src/base/quantizer.cpp), used by copy, views and printing.
#include <ostream>

#include "ember/core/quantizer.h"

namespace ember {

// The stored integers of a quantized tensor as a plain integer tensor sharing
// its storage and geometry (int8 / uint8 / int32); not an autograd view.
Tensor int_alias(const Tensor& q);

// clone / contiguous / copy_ of quantized tensors. copy_ follows PyTorch:
// quantized <- quantized (same dtype and scheme) copies the integers and
// takes the source's quantizer; quantized <- floating quantizes with the
// destination's quantizer; floating <- quantized is refused.
Tensor quantized_clone(const Tensor& self, MemoryFormat format, const char* op);
void quantized_copy_(const Tensor& dst, const Tensor& src);

// Note [Quantized views]: a view of a quantized tensor shares its quantizer;
// a view of a per-channel tensor holds one whose axis (and scales) follow the
// op. These set the view's quantizer after make_view (which copied base's).
void qview_reshaped(const Tensor& view, const Tensor& base, const char* op);
void qview_permuted(const Tensor& view, const Tensor& base, IntArrayRef dims);
void qview_selected(const Tensor& view, const Tensor& base, int64_t dim, int64_t index);
void qview_sliced(const Tensor& view, const Tensor& base, int64_t dim, int64_t start, int64_t step);
void qview_expanded(const Tensor& view, const Tensor& base);
// Views whose elements mix channels (as_strided, unfold, diagonal) or
// reinterpret bytes (view(dtype), real, imag): refused for per-channel
// (view(dtype) for every quantized tensor) with an error naming the op.
void qview_check_supported(const Tensor& base, const char* op, bool per_tensor_ok = true);

void print_quantized(std::ostream& os, const Tensor& t);

}  // namespace ember
