// amplitude_to_DB / DB_to_amplitude, as torchaudio 0.13's functional.py.
#include <ember/audio/functional.h>

namespace ember::audio::functional {

Tensor amplitude_to_DB(const Tensor& x, double multiplier, double amin, double db_multiplier,
                       std::optional<double> top_db) {
  EMBER_CHECK(x.is_floating_point(), "amplitude_to_DB: expected a floating-point tensor, got ", x.dtype());
  EMBER_CHECK(amin > 0, "amplitude_to_DB: amin must be positive, got ", amin);
  Tensor x_db = (x.clamp_min(amin).log10() * multiplier) - multiplier * db_multiplier;
  if (!top_db) return x_db;
  EMBER_CHECK(*top_db >= 0, "amplitude_to_DB: top_db must be non-negative, got ", *top_db);
  EMBER_CHECK(x_db.dim() >= 2, "amplitude_to_DB: top_db needs at least 2 dims (..., freq, time), got ", x_db.dim());
  // torchaudio packs the leading dims to [batch, channels, freq, time] and
  // clamps each batch item against its own maximum.
  const auto shape = x_db.sizes().vec();
  const int64_t d = x_db.dim();
  const int64_t channels = d > 2 ? shape[d - 3] : 1;
  Tensor packed = x_db.reshape({-1, channels, shape[d - 2], shape[d - 1]});
  Tensor floor = (packed.amax({-3, -2, -1}) - *top_db).view({-1, 1, 1, 1});
  return packed.maximum(floor).reshape(shape);
}

Tensor DB_to_amplitude(const Tensor& x, double ref, double power) {
  EMBER_CHECK(x.is_floating_point(), "DB_to_amplitude: expected a floating-point tensor, got ", x.dtype());
  return ref * ember::pow(10.0, x * 0.1).pow(power);
}

}  // namespace ember::audio::functional
