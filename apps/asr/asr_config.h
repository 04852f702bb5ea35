#pragma once
// ember-asr's run configuration and result: Wav2Letter trained with CTC on a
// LibriSpeech-layout corpus (docs/audio.md, "The ember-asr pipeline").
#include <cstdint>
#include <string>

namespace ember::apps::asr_app {

struct AsrConfig {
  std::string data;                            // the root holding LibriSpeech/ (required by train_asr)
  std::string train_subset = "train-clean-100";
  std::string dev_subset = "dev-clean";        // evaluated after every epoch; empty: none
  std::string eval_subset = "test-clean";      // evaluated once the run is complete
  int64_t train_limit = 0;                     // the first N training utterances only (0: all)
  // Features (Note [ASR feature rate] in asr_features.cpp).
  std::string input_type = "mfcc";             // mfcc or power_spectrum
  int64_t n_mfcc = 40;                         // mfcc: coefficients (the model's input channels)
  int64_t n_fft = 400;                         // window and FFT size (25 ms at 16 kHz)
  int64_t hop_length = 320;                    // 20 ms: the model's output runs at 25 frames/s
  // SpecAugment (training only): one band of at most N features and one of at
  // most N frames masked per utterance; 0 turns a mask off.
  int64_t freq_mask = 6;
  int64_t time_mask = 6;
  // kaiming (He normal weights, zero biases: Note [Wav2Letter initialisation]
  // in asr_trainer.cpp) or torchaudio (the model's own, PyTorch's defaults).
  std::string init = "kaiming";
  int64_t epochs = 8;                          // the schedule's 2-epoch warm-up needs them: Note [ASR schedule]
  int64_t batch_size = 4;
  double lr = 1e-3;                            // OneCycleLR's peak for Adam
  double clip = 1.0;                           // gradient norm clipping (0: none)
  int64_t beam = 10;                           // prefix beam search width
  std::string lexicon;                         // a word list constraining the beam search
  int64_t threads = 0;                         // intra-op threads; 0: Ember's default
  int64_t seed = 0;
  bool deterministic = false;                  // bitwise-reproducible results under any machine load
  std::string out = "ember-asr-out";
  std::string resume;
  int64_t stop_after = 0;                      // stop after N epochs of this run (0: all)
  bool progress = true;
};

struct ErrorRates {
  double cer = 0, wer = 0;
};

struct AsrResult {
  int64_t epochs_done = 0;
  double final_train_loss = 0;
  bool evaluated = false;     // the run is complete and eval_subset was decoded
  int64_t eval_utterances = 0;
  ErrorRates greedy, beam;    // on eval_subset
  std::string checkpoint;
};

}  // namespace ember::apps::asr_app
