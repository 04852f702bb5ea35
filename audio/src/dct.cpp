// create_dct, as torchaudio 0.13's functional.py (float32, as torchaudio builds it).
#include <cmath>
#include <numbers>

#include <ember/audio/functional.h>

namespace ember::audio::functional {

Tensor create_dct(int64_t n_mfcc, int64_t n_mels, std::optional<std::string> norm) {
  EMBER_CHECK(n_mfcc > 0 && n_mels > 0, "create_dct: n_mfcc and n_mels must be positive, got ", n_mfcc, " and ",
              n_mels);
  EMBER_CHECK(!norm || *norm == "ortho", "create_dct: norm must be \"ortho\" or none, got \"", norm.value_or(""),
              "\"");
  const Tensor n = arange(static_cast<double>(n_mels), TensorOptions().dtype(kFloat32));
  const Tensor k = arange(static_cast<double>(n_mfcc), TensorOptions().dtype(kFloat32)).unsqueeze(1);
  Tensor dct = ((n + 0.5) * (std::numbers::pi / static_cast<double>(n_mels)) * k).cos();  // [n_mfcc, n_mels]
  if (!norm) return (dct * 2.0).t();
  // torchaudio scales row 0 by 1/sqrt(2), then everything by sqrt(2/n_mels).
  const Tensor row0 = (k == 0).to(kFloat32) * (1.0 / std::sqrt(2.0) - 1.0) + 1.0;
  return (dct * row0 * std::sqrt(2.0 / static_cast<double>(n_mels))).t();
}

}  // namespace ember::audio::functional
