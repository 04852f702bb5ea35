#include "vocoder_generate.h"

#include <algorithm>

#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/io/audio.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>

namespace ember::apps::vocoder {

std::vector<Tensor> vocode(models::WaveRNN& net, Features& features, const std::vector<Tensor>& waveforms,
                           uint64_t seed) {
  EMBER_CHECK(!waveforms.empty(), "ember-vocoder: nothing to vocode");
  NoGradGuard no_grad;
  net->eval();
  std::vector<Tensor> mels;
  std::vector<int64_t> frames;
  int64_t longest = 0;
  for (const Tensor& w : waveforms) {
    mels.push_back(features.conditioning(w));
    frames.push_back(mels.back().size(1));
    longest = std::max(longest, frames.back());
  }
  for (Tensor& m : mels) m = pad(m, {0, longest - m.size(1)});
  Generator generator(seed);
  const auto [audio, lengths] = net->infer(stack(mels), tensor(frames, kInt64), &generator);
  const Tensor decoded = decode_generated(audio.squeeze(1), features.spec().bits);  // [N, T * hop]
  std::vector<Tensor> out;
  for (size_t i = 0; i < waveforms.size(); ++i)
    out.push_back(decoded[static_cast<int64_t>(i)].narrow(0, 0, waveforms[i].size(0)).contiguous());
  return out;
}

Evaluation evaluate_distances(Features& features, const std::vector<Tensor>& originals,
                              const std::vector<Tensor>& generated, uint64_t seed) {
  EMBER_CHECK(originals.size() == generated.size() && !originals.empty(),
              "ember-vocoder: evaluate_distances needs one generated waveform per original");
  Generator generator(seed);
  Evaluation e;
  e.utterances = static_cast<int64_t>(originals.size());
  for (size_t i = 0; i < originals.size(); ++i) {
    const Tensor& x = originals[i];
    const double rms = x.square().mean().sqrt().item<double>();
    e.model += features.log_mel_distance(generated[i], x);
    e.silence += features.log_mel_distance(zeros_like(x), x);
    e.noise += features.log_mel_distance(randn({x.size(0)}, kFloat32, &generator) * rms, x);
  }
  const double n = static_cast<double>(originals.size());
  e.model /= n;
  e.silence /= n;
  e.noise /= n;
  return e;
}

void write_wav(const std::string& path, const Tensor& waveform, int64_t sample_rate) {
  audio::save(path, waveform.clamp(-1.0, 1.0).unsqueeze(0).to(kFloat32).contiguous(), sample_rate,
              /*channels_first=*/true, "wav", "PCM_S", 16);
}

}  // namespace ember::apps::vocoder
