#pragma once
// Gamma and Dirichlet samples from Ember's generator, for AugMix's weights
// (torch._standard_gamma and torch._sample_dirichlet, which ember/ops/random.h
// does not have). Marsaglia and Tsang's method (2000) with the boost for
// alpha < 1, in double, as torch's CPU sample_gamma; normal draws by
// Box-Muller. Same distributions as torch's, not the same numbers.
#include <ember/core/generator.h>
#include <ember/core/tensor.h>

namespace ember::vision::transforms {

// One Gamma(alpha, 1) sample (alpha > 0, finite): mean alpha, variance alpha.
double sample_gamma(double alpha, Generator* generator = nullptr);

// torch._sample_dirichlet: for each row of concentration [..., K] (float32 or
// float64, values > 0), a sample of Dirichlet(row): Gamma(alpha_k) draws
// normalized by their sum, in double, then rounded to the dtype and clamped
// to [smallest normal, largest value below 1] as torch does. Same shape and
// dtype, contiguous. Rows are drawn in row-major order.
Tensor sample_dirichlet(const Tensor& concentration, Generator* generator = nullptr);

}  // namespace ember::vision::transforms
