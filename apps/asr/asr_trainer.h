#pragma once
// ember-asr's training run: Wav2Letter on a LibriSpeech subset with CTC loss
// and SpecAugment masking, Adam under a one-cycle schedule, a dev evaluation
// (greedy and beam CER/WER) and a resumable checkpoint after every epoch, and
// the held-out subset decoded once the run is complete.
#include "asr_config.h"

namespace ember::apps::asr_app {

// config.data must name the corpus root (main.cpp fills in the default).
// Errors are ember::Error with one line each.
AsrResult train_asr(const AsrConfig& config);

}  // namespace ember::apps::asr_app
