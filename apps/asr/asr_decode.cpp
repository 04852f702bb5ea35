#include "asr_decode.h"

#include <ember/audio/decoders/ctc.h>
#include <ember/audio/metrics/error_rate.h>
#include <ember/autograd/grad_mode.h>
#include <ember/nn/functional/loss.h>

namespace ember::apps::asr_app {

Transcripts decode_log_probs(const Tensor& log_probs, const Tensor& output_frames, const CharVocabulary& vocabulary,
                   const DecodeOptions& options) {
  namespace dec = audio::decoders;
  const Tensor time_major = log_probs.permute({2, 0, 1});  // [frames, B, classes]
  Transcripts t;
  for (const auto& ids : dec::ctc_greedy_decode(time_major, output_frames, CharVocabulary::kBlank))
    t.greedy.push_back(vocabulary.decode(ids));
  const auto beams = dec::ctc_prefix_beam_search(
      time_major, output_frames,
      {.beam_size = options.beam, .blank = CharVocabulary::kBlank, .nbest = 1, .lexicon = options.lexicon});
  // With a lexicon an utterance may have no complete word sequence: its transcript is empty.
  for (const auto& hyps : beams) t.beam.push_back(hyps.empty() ? std::string() : vocabulary.decode(hyps[0].tokens));
  return t;
}

SplitEvaluation evaluate_split(models::Wav2Letter& model, const SpeechSplit& split, const CharVocabulary& vocabulary,
                               const DecodeOptions& options, int64_t batch_size) {
  namespace metrics = audio::metrics;
  model->eval();
  NoGradGuard no_grad;
  SplitEvaluation e;
  std::vector<std::string> references(split.utterances.size());
  Transcripts hyps;
  hyps.greedy.resize(split.utterances.size());
  hyps.beam.resize(split.utterances.size());
  double loss_sum = 0;
  for (const auto& indices : sorted_batches(split, batch_size)) {
    const FeatureBatch b = make_batch(split, indices);
    const Tensor log_probs = model(b.features);
    // ctc_loss's mean (each loss over its target length, averaged), weighted by the batch size.
    const Tensor per_char = nn::functional::ctc_loss(
        log_probs.permute({2, 0, 1}), b.targets, b.output_frames, b.target_lengths,
        {.blank = CharVocabulary::kBlank, .reduction = nn::functional::Reduction::Mean, .zero_infinity = true});
    loss_sum += per_char.item<double>() * static_cast<double>(indices.size());
    Transcripts t = decode_log_probs(log_probs, b.output_frames, vocabulary, options);
    for (size_t j = 0; j < indices.size(); ++j) {
      const auto i = static_cast<size_t>(indices[j]);
      references[i] = split.utterances[i].transcript;
      hyps.greedy[i] = std::move(t.greedy[j]);
      hyps.beam[i] = std::move(t.beam[j]);
    }
  }
  e.utterances = static_cast<int64_t>(split.utterances.size());
  e.loss = loss_sum / static_cast<double>(e.utterances);
  e.greedy = {metrics::char_error_rate(references, hyps.greedy).rate, metrics::word_error_rate(references, hyps.greedy).rate};
  e.beam = {metrics::char_error_rate(references, hyps.beam).rate, metrics::word_error_rate(references, hyps.beam).rate};
  e.references = std::move(references);
  e.hypotheses = std::move(hyps);
  return e;
}

}  // namespace ember::apps::asr_app
