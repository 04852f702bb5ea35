#pragma once
// Random sampling, as torch.rand & co. Every function takes an optional
// Generator* last; nullptr means default_generator(). Numbers come from a
// counter-based Philox4x32-10 stream: reproducible per seed and independent
// of the thread count, but not bit-identical to PyTorch's CPU generator.
//
// Continuous distributions accept float16, bfloat16, float32 and float64;
// randint/random_ any real dtype (and bool); bernoulli any real dtype or bool.
#include <cstdint>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

// Uniform on [0, 1).
Tensor rand(IntArrayRef size, const TensorOptions& options = {}, Generator* generator = nullptr);
// Standard normal.
Tensor randn(IntArrayRef size, const TensorOptions& options = {}, Generator* generator = nullptr);
// Integers uniform on [low, high); int64 unless options give a dtype.
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options = kInt64,
               Generator* generator = nullptr);
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = kInt64,
               Generator* generator = nullptr);
// A random permutation of 0..n-1 (int64 unless options give a dtype).
Tensor randperm(int64_t n, const TensorOptions& options = kInt64, Generator* generator = nullptr);

// Same shape as t; dtype from options when set, else t's.
Tensor rand_like(const Tensor& t, const TensorOptions& options = {}, Generator* generator = nullptr);
Tensor randn_like(const Tensor& t, const TensorOptions& options = {}, Generator* generator = nullptr);
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {},
                    Generator* generator = nullptr);
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options = {},
                    Generator* generator = nullptr);

// 1 with probability p[i], else 0; same shape and dtype as p (floating), p in [0, 1].
Tensor bernoulli(const Tensor& p, Generator* generator = nullptr);
// Shaped and typed like self, each element 1 with probability p.
Tensor bernoulli(const Tensor& self, double p, Generator* generator = nullptr);

// Normal samples with the given means and standard deviations (std >= 0);
// tensor arguments broadcast.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* generator = nullptr);
Tensor normal(const Tensor& mean, double std = 1, Generator* generator = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* generator = nullptr);
Tensor normal(double mean, double std, IntArrayRef size, const TensorOptions& options = {},
              Generator* generator = nullptr);

// Indices of num_samples categories drawn from each row of probs (1-d: one
// distribution; 2-d: one per row), with probabilities proportional to probs
// (non-negative, finite, positive sum). Without replacement, each category is
// drawn at most once and needs enough non-zero categories. Returns int64
// [num_samples] or [rows, num_samples].
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false,
                   Generator* generator = nullptr);

// Single numbers, for code that draws a few parameters at a time (data
// augmentation, samplers) without making tensors. Each call takes one Philox
// block from the generator.
// Uniform on [low, high) with 53 random bits (low <= high).
double uniform_scalar(double low, double high, Generator* generator = nullptr);
// An integer uniform on [low, high) (low < high); 64 random bits reduced modulo
// the range, so the bias is below range / 2^64.
int64_t randint_scalar(int64_t low, int64_t high, Generator* generator = nullptr);

}  // namespace ember
