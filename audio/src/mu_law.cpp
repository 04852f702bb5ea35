// mu_law_encoding / mu_law_decoding, as torchaudio 0.13's functional.py.
#include <ember/audio/functional.h>

namespace ember::audio::functional {

Tensor mu_law_encoding(const Tensor& x, int64_t quantization_channels) {
  EMBER_CHECK(quantization_channels >= 2, "mu_law_encoding: quantization_channels must be >= 2, got ",
              quantization_channels);
  const Tensor xf = x.is_floating_point() ? x : x.to(kFloat32);
  const double mu = static_cast<double>(quantization_channels) - 1.0;
  Tensor x_mu = xf.sign() * (xf.abs() * mu).log1p() / std::log1p(mu);
  return ((x_mu + 1.0) / 2.0 * mu + 0.5).to(kInt64);
}

Tensor mu_law_decoding(const Tensor& x_mu, int64_t quantization_channels) {
  EMBER_CHECK(quantization_channels >= 2, "mu_law_decoding: quantization_channels must be >= 2, got ",
              quantization_channels);
  const Tensor xf = x_mu.is_floating_point() ? x_mu : x_mu.to(kFloat32);
  const double mu = static_cast<double>(quantization_channels) - 1.0;
  Tensor x = xf / mu * 2.0 - 1.0;
  return x.sign() * ((x.abs() * std::log1p(mu)).exp() - 1.0) / mu;
}

}  // namespace ember::audio::functional
