#include "transcribe.h"

#include <ember/audio/functional/resample.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/io/audio.h>
#include <ember/ops/factories.h>

#include "asr_checkpoint.h"
#include "asr_decode.h"

namespace ember::apps::asr_app {

std::vector<std::string> transcribe_files(const std::string& checkpoint, const std::vector<std::string>& files,
                                          const TranscribeOptions& options) {
  EMBER_CHECK(options.beam >= 1, "ember-asr: --beam must be positive, got ", options.beam);
  const AsrCheckpoint ckpt = load_asr_checkpoint(checkpoint);
  models::Wav2Letter model = load_asr_model(ckpt);
  model->eval();
  const FeatureExtractor features(ckpt.features);
  DecodeOptions decode{.beam = options.beam, .lexicon = std::nullopt};
  if (!options.lexicon.empty()) decode.lexicon = ckpt.vocabulary.read_lexicon(options.lexicon);
  NoGradGuard no_grad;
  std::vector<std::string> transcripts;
  for (const std::string& file : files) {
    auto [waveform, rate] = audio::load(file);
    EMBER_CHECK(waveform.dim() == 2 && waveform.size(1) > 0, "ember-asr: '", file, "' holds no audio");
    Tensor mono = waveform.size(0) == 1 ? waveform : waveform.mean({0}, /*keepdim=*/true);
    if (rate != ckpt.features.sample_rate) mono = audio::functional::resample(mono, rate, ckpt.features.sample_rate);
    EMBER_CHECK(mono.size(1) >= ckpt.features.hop_length, "ember-asr: '", file, "' is too short (",
                mono.size(1), " samples at ", ckpt.features.sample_rate, " Hz)");
    const Tensor f = features(mono).unsqueeze(0);
    const Tensor log_probs = model(f);
    const Tensor frames = tensor(std::vector<int64_t>{log_probs.size(2)}, kInt64);
    Transcripts t = decode_log_probs(log_probs, frames, ckpt.vocabulary, decode);
    transcripts.push_back(options.beam == 1 ? t.greedy[0] : t.beam[0]);
  }
  return transcripts;
}

}  // namespace ember::apps::asr_app
