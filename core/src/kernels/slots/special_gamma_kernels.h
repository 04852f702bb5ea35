#pragma once
// Kernel slots of ember::special's gamma / erf family (gamma_ops.cpp checks
// arguments and builds the iterator; kernels/cpu/special_gamma_kernels.cpp computes).
#include <cstdint>

#include <cstddef>
#include <iterator>

#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

enum class SpecialGammaUnaryOp { Gammaln, Digamma, Erfcx, Erfinv, Ndtr, LogNdtr, Ndtri };
// Op names (a family slot: missing_kernels reports single ops).
inline constexpr const char* kSpecialGammaUnaryOpNames[] = {"gammaln", "digamma", "erfcx", "erfinv",
                                                            "ndtr",    "log_ndtr", "ndtri"};
static_assert(std::size(kSpecialGammaUnaryOpNames) == static_cast<size_t>(SpecialGammaUnaryOp::Ndtri) + 1);
using SpecialGammaUnaryFn = void(TensorIterator&, SpecialGammaUnaryOp);
extern KernelSlot<SpecialGammaUnaryFn> special_gamma_unary_slot;

// Input x -> polygamma(n, x).
using PolygammaFn = void(TensorIterator&, int64_t n);
extern KernelSlot<PolygammaFn> polygamma_slot;

// Inputs (self, other) of the common dtype -> output.
enum class SpecialGammaBinaryOp { Zeta, Gammainc, Gammaincc };
inline constexpr const char* kSpecialGammaBinaryOpNames[] = {"zeta", "gammainc", "gammaincc"};
static_assert(std::size(kSpecialGammaBinaryOpNames) == static_cast<size_t>(SpecialGammaBinaryOp::Gammaincc) + 1);
using SpecialGammaBinaryFn = void(TensorIterator&, SpecialGammaBinaryOp);
extern KernelSlot<SpecialGammaBinaryFn> special_gamma_binary_slot;

}  // namespace ember
