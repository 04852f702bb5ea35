// ember-vocoder: trains WaveRNN to turn mel spectrograms back into speech on a
// LibriTTS-layout corpus, writes generated WAVs for held-out speakers and
// reports their spectral distance to the originals (docs/audio.md, "The
// ember-vocoder pipeline"; `ember-vocoder --help`). --vocode CHECKPOINT WAV...
// resynthesizes given audio from its mel spectrogram.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "common/flags.h"
#include "vocoder/vocode_files.h"
#include "vocoder/vocoder_trainer.h"

int main(int argc, char** argv) {
  using ember::apps::Flags;
  using ember::apps::fail;
  namespace app = ember::apps::vocoder;
  app::VocoderConfig c;
  std::string vocode;
  Flags flags("ember-vocoder",
              "Trains WaveRNN (mel spectrogram -> waveform, mu-law classes) on a LibriTTS-layout corpus, as\n"
              "torchaudio's examples/pipeline_wavernn: random segments of --seq-len-factor hops, a validation loss\n"
              "every epoch, resumable checkpoints (last, best) and metrics.json in --out. After the last epoch it\n"
              "generates held-out test utterances into OUT/samples/ and reports their log-mel L1 distance to the\n"
              "originals beside two baselines' (silence, noise of the same RMS).\n"
              "--vocode CHECKPOINT WAV... turns each file's mel spectrogram back into a waveform (OUT/vocoded/).",
              "[WAV...]");
  flags.add("--data", &c.data, "DIR", "corpus root holding LibriTTS/{train-clean-100,dev-clean,test-clean}");
  flags.add("--train-subset", &c.train_subset, "NAME", "LibriTTS subset to train on");
  flags.add("--val-subset", &c.val_subset, "NAME", "LibriTTS subset of the validation loss");
  flags.add("--test-subset", &c.test_subset, "NAME", "LibriTTS subset generated after training (held-out speakers)");
  flags.add("--sample-rate", &c.sample_rate, "HZ", "the waveforms are resampled to this rate");
  flags.add("--n-fft", &c.n_fft, "N", "mel spectrogram: FFT size");
  flags.add("--win-length", &c.win_length, "N", "mel spectrogram: window length");
  flags.add("--upsample-scales", &c.upsample_scales, "A,B,..",
            "WaveRNN's upsampling factors; their product is the hop length");
  flags.add("--n-mels", &c.n_mels, "N", "mel bands (WaveRNN's n_freq)");
  flags.add("--f-min", &c.f_min, "HZ", "mel spectrogram: lowest frequency");
  flags.add("--min-level-db", &c.min_level_db, "DB", "NormalizeDB: the level mapped to 0");
  flags.add("--bits", &c.bits, "N", "mu-law depth: 2^N output classes");
  flags.add("--n-rnn", &c.n_rnn, "N", "GRU width");
  flags.add("--n-fc", &c.n_fc, "N", "fully connected width");
  flags.add("--n-res-block", &c.n_res_block, "N", "MelResNet residual blocks");
  flags.add("--n-hidden", &c.n_hidden, "N", "MelResNet width");
  flags.add("--n-output", &c.n_output, "N", "MelResNet output features (a multiple of 4)");
  flags.add("--kernel-size", &c.kernel_size, "N", "MelResNet's first convolution (odd)");
  flags.add("--seq-len-factor", &c.seq_len_factor, "N", "frames per training segment");
  flags.add("--batch-size", &c.batch_size, "N", "segments per step");
  flags.add("--segments-per-utterance", &c.segments_per_utterance, "N",
            "random segments of each training utterance per epoch");
  flags.add("--train-utterances", &c.train_utterances, "N", "train on the first N utterances only (0: all)");
  flags.add("--epochs", &c.epochs, "N", "passes over the training data");
  flags.add("--lr", &c.lr, "X", "Adam learning rate");
  flags.add("--clip", &c.clip, "X", "gradient norm clipping");
  flags.add("--num-samples", &c.num_samples, "N", "test utterances generated after training");
  flags.add("--temperature", &c.temperature, "X", "generation samples softmax(logits / X) (1: torchaudio's infer)");
  flags.add("--threads", &c.threads, "N", "intra-op threads (0: all cores)");
  flags.add("--seed", &c.seed, "N", "seed of the initialisation, segments, validation segments and sampling");
  flags.add_switch("--deterministic", &c.deterministic, "bitwise-reproducible results under any machine load");
  flags.add("--out", &c.out, "DIR", "checkpoints, metrics.json, samples/ and vocoded/ go here");
  flags.add("--resume", &c.resume, "FILE", "continue a run from its checkpoint");
  flags.add("--stop-after", &c.stop_after, "N", "stop after N epochs of this run (0: run all; --resume later)");
  flags.add("--max-distance-ratio", &c.max_distance_ratio, "X",
            "exit with 1 if the test distance exceeds X times the better baseline's");
  flags.add("--vocode", &vocode, "CHECKPOINT", "resynthesize the WAV files given as arguments");
  bool no_progress = false;
  flags.add_switch("--no-progress", &no_progress, "one line per 10 s instead of a live progress bar");
  const std::vector<std::string> rest = flags.parse(argc, argv);
  c.progress = !no_progress;
  if (vocode.empty() && !rest.empty()) fail("ember-vocoder", "unexpected positional argument (see --help)", 2);
  if (!vocode.empty() && rest.empty()) fail("ember-vocoder", "--vocode CHECKPOINT needs one or more WAV files", 2);
  try {
    if (!vocode.empty()) {
      app::vocode_files(vocode, rest, c.out, static_cast<uint64_t>(c.seed), c.threads, c.temperature);
      return 0;
    }
    const app::VocoderResult r = app::train_vocoder(c);
    if (c.max_distance_ratio > 0 && r.evaluated) {
      const double ratio = r.test.model / std::min(r.test.silence, r.test.noise);
      if (ratio > c.max_distance_ratio) {
        std::fprintf(stderr, "ember-vocoder: test distance ratio %.4f is above --max-distance-ratio %.4f\n", ratio,
                     c.max_distance_ratio);
        return 1;
      }
    }
  } catch (const std::exception& e) {
    fail("ember-vocoder", e.what());
  }
  return 0;
}
