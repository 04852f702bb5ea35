#pragma once
// ember-vocoder's training run (see docs/audio.md, "The ember-vocoder
// pipeline"): WaveRNN on random segments of the training subset, a
// teacher-forced validation loss every epoch, checkpoints (last, best) and
// metrics.json in --out, then generated WAVs for held-out test utterances and
// their log-mel L1 distance to the originals beside two baselines'.
#include "vocoder_config.h"

namespace ember::apps::vocoder {

VocoderResult train_vocoder(const VocoderConfig& config);

// The checkpoint paths of a run's --out folder.
std::string last_checkpoint_path(const std::string& out);
std::string best_checkpoint_path(const std::string& out);

}  // namespace ember::apps::vocoder
