#pragma once
// ember-separate's run configuration and result: ConvTasNet trained with the
// permutation-invariant SI-SNR loss on a Libri2Mix or wsj0-mix layout
// (docs/audio.md, "The ember-separate pipeline").
#include <cstdint>
#include <string>

#include <ember/models/conv_tasnet.h>

namespace ember::apps::separate_app {

struct SeparateConfig {
  std::string data;                    // corpus root; empty: the default speech corpus
  std::string layout = "librimix";     // librimix (DATA/Libri<N>Mix/...) or wsj0mix (DATA/{tr,cv,tt})
  std::string task = "sep_clean";      // librimix: sep_clean (mix_clean) or sep_noisy (mix_both)
  std::string train_subset = "train-100";  // librimix: the training subset (train-100 or train-360)
  int64_t num_speakers = 2;            // sources per mixture (2 or 3)
  int64_t sample_rate = 8000;          // 8000 or 16000 (librimix: wav8k or wav16k)
  // The model: a small ConvTasNet by default (it trains in minutes on 2
  // cores), conv_tasnet_base with base = true. A resumed run takes the
  // checkpoint's.
  bool base = false;
  models::ConvTasNetOptions model = small_model();
  double segment_seconds = 1.0;        // training crops of this length, at random offsets
  int64_t batch_size = 4;
  int64_t epochs = 0;                  // 0: 20 (the default model), 100 (--base, the recipe's), a resumed run's own
  double lr = 0;                       // Adam; 0: 3e-3 for the default model, 1e-3 (the recipe's) with base
  double clip = 5.0;                   // gradient L2 norm clipping, as the recipe
  int64_t patience = 3;                // ReduceLROnPlateau on the dev SI-SNRi (factor 0.5), as the recipe
  int64_t workers = 1;                 // DataLoader worker threads reading and cropping the files
  int64_t threads = 0;                 // intra-op threads; 0: Ember's default
  int64_t seed = 0;
  bool deterministic = false;          // bitwise-reproducible results under any machine load
  std::string output = "ember-separate-out";
  std::string resume;
  int64_t stop_after = 0;              // stop after N epochs of this run (0: run all; --resume later)
  int64_t examples = 4;                // held-out mixtures whose separations go to OUTPUT/separated/
  double min_si_snri = 0;              // exit 1 when the test SI-SNRi (dB) is lower
  bool progress = true;

  // The default model: N 64, L 32 (a stride of 2 ms at 8 kHz), B 32, H 64,
  // X 6, R 2, sigmoid masks: 0.08 M parameters, about 1/60 of
  // conv_tasnet_base's, and half its frames (Note [The default model] in
  // separate_trainer.cpp).
  static models::ConvTasNetOptions small_model() {
    return {.num_sources = 2,
            .enc_kernel_size = 32,
            .enc_num_feats = 64,
            .msk_kernel_size = 3,
            .msk_num_feats = 32,
            .msk_num_hidden_feats = 64,
            .msk_num_layers = 6,
            .msk_num_stacks = 2,
            .msk_activate = "sigmoid"};
  }
};

struct SeparateResult {
  int64_t epochs_done = 0;
  double final_train_si_snr = 0;  // the last epoch's mean training SI-SNR (dB, best permutation)
  double val_si_snri = 0;         // the last epoch's mean SI-SNRi on the dev split (dB)
  double test_si_snri = 0;        // mean SI-SNRi on the test split (held-out speakers), after the last epoch
  double test_sdri = 0;           // mean SDRi there (the recipe's second number)
  int64_t test_mixtures = 0;
  std::string checkpoint;
};

}  // namespace ember::apps::separate_app
