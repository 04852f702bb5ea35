#pragma once
// ember-vocoder's run configuration and result: WaveRNN (ember::models)
// trained to turn mel spectrograms back into waveforms on a LibriTTS-layout
// corpus, as torchaudio's examples/pipeline_wavernn (mu-law targets, random
// segments of seq_len_factor hops), sized for a 2-core machine.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::apps::vocoder {

struct VocoderConfig {
  std::string data;                 // corpus root holding LibriTTS/; empty: the default speech corpus
  std::string train_subset = "train-clean-100";
  std::string val_subset = "dev-clean";
  std::string test_subset = "test-clean";
  // Features (torchaudio's MelSpectrogram + NormalizeDB): the waveform at
  // sample_rate, hop_length = the product of upsample_scales.
  int64_t sample_rate = 8000;
  int64_t n_fft = 512;
  int64_t win_length = 400;
  std::string upsample_scales = "5,5,4";  // hop_length 100 (12.5 ms at 8 kHz)
  int64_t n_mels = 40;
  double f_min = 40;
  double min_level_db = -100;
  int64_t bits = 8;                 // mu-law classes 2^bits
  // Model (torchaudio's WaveRNN arguments; small defaults for 2 cores).
  int64_t n_rnn = 96, n_fc = 96, n_res_block = 2, n_hidden = 64, n_output = 64, kernel_size = 5;
  // Training.
  int64_t seq_len_factor = 5;       // frames per training segment (segments of seq_len_factor * hop samples)
  int64_t batch_size = 16;
  int64_t segments_per_utterance = 1;  // random segments drawn from each training utterance per epoch
  int64_t train_utterances = 0;     // > 0: train on the first N utterances of the subset only
  int64_t epochs = 8;
  double lr = 4e-3;                 // Adam, cosine-annealed per step to 5% of it
  double clip = 4.0;                // gradient norm clipping (torchaudio's clip_grad)
  int64_t threads = 0;              // intra-op threads; 0: Ember's default
  int64_t seed = 0;
  bool deterministic = false;       // bitwise-reproducible results under any machine load
  // Generation after training: the first num_samples test utterances.
  int64_t num_samples = 12;
  double temperature = 1.0;         // generation samples softmax(logits / temperature)
  std::string out = "ember-vocoder-out";
  std::string resume;
  int64_t stop_after = 0;           // stop after N epochs of this run (0: all; --resume later)
  double max_distance_ratio = 0;    // > 0: exit 1 when the model's distance / the baseline's is higher
  bool progress = true;
};

// One epoch of a run, as metrics.json lists it.
struct EpochRecord {
  int64_t epoch = 0;
  double train_loss = 0;  // cross-entropy over the mu-law classes, nats
  double val_loss = 0;    // the same, teacher-forced, on fixed segments of the validation subset
  double lr = 0;
  double seconds = 0;
  double samples_per_s = 0;  // training waveform samples per second
};

// The spectral distances of the generated test utterances and the baselines'.
struct Evaluation {
  int64_t utterances = 0;
  double model = 0;    // log-mel L1 distance of the WaveRNN output to the originals
  double silence = 0;  // of silence
  double noise = 0;    // of white noise with each original's RMS
  double seconds = 0;
};

struct VocoderResult {
  int64_t epochs_done = 0;
  double final_train_loss = 0;
  double val_loss = 0;
  bool evaluated = false;  // the run finished its epochs and generated the test samples
  Evaluation test;
  std::vector<std::string> sample_files;
  std::string checkpoint;
};

}  // namespace ember::apps::vocoder
