#pragma once
// Kernel slots of the random family. Ops (random_ops.cpp) check arguments,
// reserve Philox counters from the Generator and hand kernels (seed, offset);
// kernels fill contiguous outputs in logical order, so values depend only on
// (seed, offset, element index). See Note [Counter-based random numbers].
#include <cstddef>
#include <iterator>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

enum class RandomDist {
  Uniform,          // [a, b)
  Normal,           // mean a, std b
  Exponential,      // rate a
  Geometric,        // success probability a; values 1, 2, ...
  Bernoulli,        // 1 with probability a
  BernoulliTensor,  // 1 with probability p[i]
  Integer,          // from + uniform integer in [0, range)
};
// Distribution names (random_slot is a family slot: missing_kernels reports
// single distributions); Integer serves random_ and randint.
inline constexpr const char* kRandomDistNames[] = {
    "uniform", "normal", "exponential", "geometric", "bernoulli", "bernoulli_tensor", "integer"};
static_assert(std::size(kRandomDistNames) == static_cast<size_t>(RandomDist::Integer) + 1);

struct RandomParams {
  double a = 0, b = 1;
  int64_t from = 0;
  uint64_t range = 1;  // Integer; at least 1
  Tensor p;            // BernoulliTensor: float64, contiguous, numel of the output
};

// 32-bit Philox words each element consumes (1, 2 or 4); a block of four
// serves 4 / words consecutive elements. Ops reserve ceil(numel / (4 / words)) blocks.
inline int random_words_per_element(RandomDist dist, DType dtype) {
  switch (dist) {
    case RandomDist::Bernoulli:
    case RandomDist::BernoulliTensor: return 1;
    case RandomDist::Geometric:
    case RandomDist::Integer: return 2;
    case RandomDist::Uniform:
    case RandomDist::Normal:
    case RandomDist::Exponential: return dtype == DType::Float64 ? 2 : 1;
  }
  return 1;
}

// out: contiguous, any dtype the op allows for dist.
using RandomFn = void(Tensor& out, RandomDist dist, const RandomParams& params, uint64_t seed,
                      uint64_t offset);
extern KernelSlot<RandomFn> random_slot;

// out: contiguous int64 [n], filled with a permutation of 0..n-1; uses n blocks.
using RandpermFn = void(Tensor& out, uint64_t seed, uint64_t offset);
extern KernelSlot<RandpermFn> randperm_slot;

// probs: contiguous float64 [rows, categories], validated by the op; out:
// contiguous int64 [rows, samples]. Uses rows * samples blocks with
// replacement, rows * categories without.
using MultinomialFn = void(const Tensor& probs, Tensor& out, bool replacement, uint64_t seed,
                           uint64_t offset);
extern KernelSlot<MultinomialFn> multinomial_slot;

}  // namespace ember
