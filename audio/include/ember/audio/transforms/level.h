#pragma once
// torchaudio.transforms that rescale values: AmplitudeToDB, MuLawEncoding,
// MuLawDecoding, Vol, Fade.
#include <cstdint>
#include <optional>
#include <string>

#include <ember/transforms/transform.h>

namespace ember::audio::transforms {

using ::ember::transforms::Params;
using ::ember::transforms::TransformImpl;
using ::ember::transforms::TransformPtr;

// Power or amplitude to decibels (functional::amplitude_to_DB with amin 1e-10,
// reference 1); stype "power" (x10) or "magnitude"/"amplitude" (x20).
class AmplitudeToDBImpl : public TransformImpl {
 public:
  explicit AmplitudeToDBImpl(std::string stype = "power", std::optional<double> top_db = std::nullopt);
  Tensor forward(const Tensor& x) override;
  Params params() const override;
  double multiplier() const { return multiplier_; }

 private:
  std::string stype_;
  std::optional<double> top_db_;
  double multiplier_;
};
EMBER_TRANSFORM(AmplitudeToDB);

class MuLawEncodingImpl : public TransformImpl {
 public:
  explicit MuLawEncodingImpl(int64_t quantization_channels = 256);
  Tensor forward(const Tensor& x) override;
  Params params() const override { return {{"quantization_channels", quantization_channels_}}; }

 private:
  int64_t quantization_channels_;
};
EMBER_TRANSFORM(MuLawEncoding);

class MuLawDecodingImpl : public TransformImpl {
 public:
  explicit MuLawDecodingImpl(int64_t quantization_channels = 256);
  Tensor forward(const Tensor& x_mu) override;
  Params params() const override { return {{"quantization_channels", quantization_channels_}}; }

 private:
  int64_t quantization_channels_;
};
EMBER_TRANSFORM(MuLawDecoding);

// Scales the waveform by `gain` as gain_type "amplitude" (a factor), "power"
// (a power ratio) or "db", then clamps to [-1, 1].
class VolImpl : public TransformImpl {
 public:
  explicit VolImpl(double gain, std::string gain_type = "amplitude");
  Tensor forward(const Tensor& waveform) override;
  Params params() const override { return {{"gain", gain_}, {"gain_type", gain_type_}}; }

 private:
  double gain_;
  std::string gain_type_;
};
EMBER_TRANSFORM(Vol);

// Fades the first fade_in_len samples in and the last fade_out_len out, with
// fade_shape "linear", "exponential", "logarithmic", "quarter_sine" or "half_sine".
struct FadeOptions {
  int64_t fade_in_len = 0;
  int64_t fade_out_len = 0;
  std::string fade_shape = "linear";
};

class FadeImpl : public TransformImpl {
 public:
  using Options = FadeOptions;
  explicit FadeImpl(Options options = {});
  FadeImpl(int64_t fade_in_len, int64_t fade_out_len, std::string fade_shape = "linear")
      : FadeImpl(Options{fade_in_len, fade_out_len, std::move(fade_shape)}) {}
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;

 private:
  Options options_;
};
EMBER_TRANSFORM(Fade);

}  // namespace ember::audio::transforms
