#pragma once
// ember-asr's decoding and scoring: Wav2Letter's log-probabilities to
// transcripts by greedy CTC decoding and by prefix beam search (optionally
// constrained to a lexicon's words), and the CER / WER of a split.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/audio/decoders/lexicon.h>
#include <ember/core/tensor.h>
#include <ember/models/wav2letter.h>

#include "asr_config.h"
#include "asr_corpus.h"
#include "char_vocabulary.h"

namespace ember::apps::asr_app {

struct DecodeOptions {
  int64_t beam = 10;
  std::optional<audio::decoders::Lexicon> lexicon;
};

struct Transcripts {
  std::vector<std::string> greedy, beam;
};

// log_probs: [B, classes, frames] (Wav2Letter's output); output_frames: int64 [B].
Transcripts decode_log_probs(const Tensor& log_probs, const Tensor& output_frames, const CharVocabulary& vocabulary,
                   const DecodeOptions& options);

struct SplitEvaluation {
  int64_t utterances = 0;
  double loss = 0;  // CTC loss (mean over utterances of the loss per target character)
  ErrorRates greedy, beam;
  std::vector<std::string> references;
  Transcripts hypotheses;
};

// The model in eval mode, without gradients, over the split in batches of
// similar lengths; the model is left in eval mode.
SplitEvaluation evaluate_split(models::Wav2Letter& model, const SpeechSplit& split, const CharVocabulary& vocabulary,
                               const DecodeOptions& options, int64_t batch_size);

}  // namespace ember::apps::asr_app
