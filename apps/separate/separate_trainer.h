#pragma once
// ember-separate's training run (torchaudio's ConvTasNet recipe,
// examples/source_separation): Adam, the permutation-invariant SI-SNR loss on
// random fixed-length segments, gradient L2 norm clipping, ReduceLROnPlateau
// on the dev split's SI-SNRi; a checkpoint (last and best) and metrics.json
// every epoch; after the last epoch the test split's SI-SNRi and separated
// WAVs of some of its mixtures in OUTPUT/separated/.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/models/conv_tasnet.h>

#include "separate_config.h"
#include "separation_data.h"

namespace ember::apps::separate_app {

// Trains as the configuration says; config.data must name the corpus root.
// Errors (bad data, a checkpoint of another app or another layout) are
// ember::Error with a one-line message.
SeparateResult train_separate(const SeparateConfig& config);

struct HeldOutScore {
  double si_snri = 0, sdri = 0;  // means over the mixtures (dB)
  int64_t mixtures = 0;
};

// Separates every mixture of `data` whole (batch 1, so no padding enters the
// global layer norms) and averages the SI-SNRi and SDRi (the recipe's
// metrics). With `examples_dir` set, the first `examples` mixtures'
// separations go there as <id>_s<i>.wav.
HeldOutScore evaluate_held_out(models::ConvTasNetImpl& model, const MixtureDataset& data, const std::string& desc,
                               bool progress, const std::string& examples_dir = "", int64_t examples = 0,
                               const std::vector<std::string>& ids = {}, int64_t sample_rate = 0);

}  // namespace ember::apps::separate_app
