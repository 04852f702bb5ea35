#include "vocoder_generate.h"

#include <algorithm>
#include <cmath>
#include <span>

#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/io/audio.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>

namespace ember::apps::vocoder {

// Note [Sampling temperature]: a WaveRNN trained for minutes is unsure of
// each next sample; drawing from its full softmax adds sample-to-sample
// jitter, i.e. broadband noise over the speech's falling spectrum. Dividing
// the logits by a temperature below 1 keeps the likely classes and drops
// the tails. Each step draws one uniform per batch element from `u`.
models::WaveRNNSampler temperature_sampler(const double* u, int64_t batch, double temperature) {
  return [u, batch, temperature](int64_t step, const Tensor& logits, std::span<int64_t> classes) {
    const int64_t n = logits.size(1);
    const float* z = logits.data_ptr<float>();
    std::vector<double> p(static_cast<size_t>(n));
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = z + b * n;
      double top = row[0];
      for (int64_t k = 1; k < n; ++k) top = std::max(top, static_cast<double>(row[k]));
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += p[static_cast<size_t>(k)] = std::exp((row[k] - top) / temperature);
      EMBER_CHECK(std::isfinite(sum) && std::isfinite(top), "ember-vocoder: non-finite logits at step ", step,
                  " (batch element ", b, ")");
      const double target = u[step * batch + b] * sum;
      double acc = 0;
      int64_t chosen = n - 1;
      for (int64_t k = 0; k < n; ++k) {
        acc += p[static_cast<size_t>(k)];
        if (target < acc) {
          chosen = k;
          break;
        }
      }
      classes[static_cast<size_t>(b)] = chosen;
    }
  };
}

std::vector<Tensor> vocode(models::WaveRNN& net, Features& features, const std::vector<Tensor>& waveforms,
                           uint64_t seed, double temperature) {
  EMBER_CHECK(!waveforms.empty(), "ember-vocoder: nothing to vocode");
  EMBER_CHECK(temperature > 0 && temperature <= 10, "ember-vocoder: --temperature must be in (0, 10] (got ",
              temperature, ")");
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
  const Tensor specgram = stack(mels);
  Tensor audio;
  if (temperature == 1.0) {
    audio = net->infer(specgram, tensor(frames, kInt64), &generator).first;
  } else {
    const int64_t steps = longest * features.spec().hop_length();
    Tensor uniforms = empty({steps, specgram.size(0)}, kFloat64);
    uniforms.uniform_(0, 1, &generator);
    audio = net->infer(specgram, tensor(frames, kInt64),
                       temperature_sampler(uniforms.data_ptr<double>(), specgram.size(0), temperature))
                .first;
  }
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
