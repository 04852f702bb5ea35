#pragma once
// ember::audio::decoders: CTC decoding of acoustic model outputs (greedy and
// prefix beam search, with an optional lexicon). Decoding runs on the CPU in
// float64 whatever the input's device and floating dtype.
#include <cstdint>
#include <optional>
#include <vector>

#include <ember/ember.h>

#include "ember/audio/decoders/lexicon.h"

namespace ember::audio::decoders {

// log_probs is [time, batch, classes] (ctc_loss's layout), [batch, time,
// classes] with batch_first, or [time, classes] for one utterance. lengths
// (integer [batch], each in [0, time]) gives each item's valid frames; without
// it every item has all of them.

// Per frame the most likely class (the first on ties, as argmax), then repeats
// collapsed and blanks dropped. Scores need not be normalised.
std::vector<std::vector<int64_t>> ctc_greedy_decode(const Tensor& log_probs,
                                                    const std::optional<Tensor>& lengths = std::nullopt,
                                                    int64_t blank = 0, bool batch_first = false);

struct CtcBeamSearchOptions {
  int64_t beam_size = 10;
  int64_t blank = 0;
  // Hypotheses returned per item, best first (at most beam_size).
  int64_t nbest = 1;
  bool batch_first = false;
  // Restricts hypotheses to sequences of lexicon words separated by its
  // delimiter (Note [Lexicon-constrained prefixes] in ctc_beam_search.cpp).
  std::optional<Lexicon> lexicon;
};

struct CtcHypothesis {
  std::vector<int64_t> tokens;  // collapsed labels, blanks removed
  // log P(tokens | input): log(p_blank + p_non_blank) of the prefix at the
  // last frame, summed over the alignments that survived the beam.
  double score = 0.0;
};

// CTC prefix beam search (Hannun et al. 2014, "First-Pass Large Vocabulary
// Continuous Speech Recognition using Bi-Directional Recurrent DNNs"): each
// prefix carries the log-probabilities of its alignments ending in a blank and
// in its last label; the beam_size most probable prefixes survive each frame.
// log_probs must be log-probabilities (log_softmax outputs). Returns per item
// up to nbest hypotheses sorted by score (ties: the smaller token sequence
// first); with a lexicon, an item with no complete word sequence gets none.
std::vector<std::vector<CtcHypothesis>> ctc_prefix_beam_search(const Tensor& log_probs,
                                                               const std::optional<Tensor>& lengths = std::nullopt,
                                                               const CtcBeamSearchOptions& options = {});

}  // namespace ember::audio::decoders
