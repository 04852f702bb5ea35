#include "vocoder_data.h"

#include <algorithm>

#include <ember/audio/functional/resample.h>
#include <ember/core/error.h>
#include <ember/datasets/speech/libritts.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>

namespace ember::apps::vocoder {

std::vector<Utterance> load_subset(const std::string& root, const std::string& subset, Features& features,
                                   int64_t limit) {
  datasets::LIBRITTS dataset(root, {.url = subset});
  const int64_t n = limit > 0 ? std::min(limit, dataset.size()) : dataset.size();
  EMBER_CHECK(n > 0, "ember-vocoder: ", root, "/LibriTTS/", subset, " holds no utterances");
  const int64_t rate = features.spec().sample_rate;
  std::vector<Utterance> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    datasets::LibriTTSSample s = dataset.get(i);
    Tensor wave = s.waveform.to(kFloat32).mean({0});
    if (s.sample_rate != rate) wave = audio::functional::resample(wave, s.sample_rate, rate);
    wave = wave.clamp(-1.0, 1.0).contiguous();
    Tensor mel = features.conditioning(wave);
    out.push_back({.id = s.utterance_id, .speaker = s.speaker_id, .waveform = wave, .mel = mel});
  }
  return out;
}

int64_t min_frames(const SegmentSpec& spec) {
  const int64_t pad = (spec.kernel_size - 1) / 2;
  return spec.seq_len_factor + 4 * pad + 1;
}

// torchaudio's raw_collate: a spectrogram window of seq_len_factor + 2 pad
// frames starting at a random frame `offset`, and the waveform from frame
// offset + pad on (seq_len_factor * hop + 1 samples: inputs are the first S,
// targets the last S).
SegmentBatch make_batch(const std::vector<const Utterance*>& utterances, const SegmentSpec& spec,
                        Generator* generator) {
  EMBER_CHECK(!utterances.empty(), "ember-vocoder: make_batch needs at least one utterance");
  const int64_t pad = (spec.kernel_size - 1) / 2;
  const int64_t spec_length = spec.seq_len_factor + 2 * pad;
  const int64_t wave_length = spec.seq_len_factor * spec.hop_length;
  std::vector<Tensor> specs, waves;
  for (const Utterance* u : utterances) {
    const int64_t frames = u->mel.size(1);
    const int64_t max_offset = frames - (spec_length + 2 * pad);
    const int64_t spare = u->waveform.size(0) - wave_length - 1;
    const int64_t max_by_samples = spare < 0 ? -1 : spare / spec.hop_length - pad;
    const int64_t limit = std::min(max_offset, max_by_samples);
    EMBER_CHECK(limit >= 0, "ember-vocoder: utterance ", u->id, " (", u->waveform.size(0),
                " samples) is too short for a segment of ", spec.seq_len_factor, " frames");
    const int64_t offset = randint_scalar(0, limit + 1, generator);
    specs.push_back(u->mel.narrow(1, offset, spec_length));
    waves.push_back(u->waveform.narrow(0, (offset + pad) * spec.hop_length, wave_length + 1));
  }
  const Tensor classes = mu_law_classes(stack(waves), spec.bits);  // [B, S + 1]
  return {.specgram = stack(specs).unsqueeze(1).contiguous(),
          .waveform = classes_to_input(classes.narrow(1, 0, wave_length), spec.bits).unsqueeze(1).contiguous(),
          .target = classes.narrow(1, 1, wave_length).contiguous()};
}

}  // namespace ember::apps::vocoder
