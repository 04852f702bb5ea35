// ember-asr: trains Wav2Letter with CTC on a LibriSpeech-layout corpus and
// reports greedy and beam-search WER/CER on held-out speakers; --transcribe
// turns audio files into text with a checkpoint (docs/audio.md, "The ember-asr
// pipeline", and `ember-asr --help`). Without --data it trains on the
// spoken-digits corpus the build renders (scripts/make_speech.sh).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "asr/asr_trainer.h"
#include "asr/transcribe.h"
#include "common/flags.h"
#include "common/speech_corpus.h"

int main(int argc, char** argv) {
  using ember::apps::Flags;
  using ember::apps::fail;
  namespace app = ember::apps::asr_app;
  app::AsrConfig c;
  std::string transcribe;
  Flags flags("ember-asr",
              "Trains Wav2Letter (torchaudio's model) with CTC loss on a LibriSpeech-layout corpus: MFCC or\n"
              "log power spectrum features, SpecAugment masking, a character vocabulary with a blank. Evaluates\n"
              "greedy and prefix-beam-search decoding (optionally constrained to a --lexicon word list) on the\n"
              "dev subset after every epoch and on --eval-subset at the end, printing CER and WER; saves\n"
              "resumable checkpoints (last, best) and metrics.json in --out. Without --data it trains on the\n"
              "spoken-digits corpus rendered by the build ($EMBER_SPEECH_CORPUS overrides it).\n"
              "--transcribe CHECKPOINT FILE... prints \"FILE<tab>TRANSCRIPT\" per audio file (any format\n"
              "Ember::io reads, resampled to the model's rate).",
              "[FILE...]");
  flags.add("--data", &c.data, "DIR", "corpus root holding LibriSpeech/<subset>/<speaker>/<chapter>/*.flac");
  flags.add("--train-subset", &c.train_subset, "NAME", "LibriSpeech subset to train on");
  flags.add("--dev-subset", &c.dev_subset, "NAME", "subset evaluated after each epoch (\"\": none)");
  flags.add("--eval-subset", &c.eval_subset, "NAME", "held-out subset evaluated at the end");
  flags.add("--train-limit", &c.train_limit, "N", "train on the first N utterances only (0: all)");
  flags.add("--input-type", &c.input_type, "NAME", "mfcc or power_spectrum (Wav2Letter's input types)");
  flags.add("--n-mfcc", &c.n_mfcc, "N", "mfcc: coefficients per frame");
  flags.add("--n-fft", &c.n_fft, "N", "window and FFT size in samples");
  flags.add("--hop-length", &c.hop_length, "N", "samples between frames (the model runs at rate / hop / 2)");
  flags.add("--freq-mask", &c.freq_mask, "N", "SpecAugment: widest masked feature band (0: off)");
  flags.add("--time-mask", &c.time_mask, "N", "SpecAugment: widest masked run of frames (0: off)");
  flags.add("--init", &c.init, "NAME", "kaiming (He normal) or torchaudio (the model's default initialisation)");
  flags.add("--epochs", &c.epochs, "N", "passes over the training utterances");
  flags.add("--batch-size", &c.batch_size, "N", "utterances per step");
  flags.add("--lr", &c.lr, "X", "peak learning rate of Adam's one-cycle schedule");
  flags.add("--clip", &c.clip, "X", "gradient norm clipping (0: none)");
  flags.add("--beam", &c.beam, "N", "prefix beam search width (transcribe: 1 decodes greedily)");
  flags.add("--lexicon", &c.lexicon, "FILE", "word list (one word per line) constraining the beam search");
  flags.add("--threads", &c.threads, "N", "intra-op threads (0: all cores)");
  flags.add("--seed", &c.seed, "N", "seed of the initialisation, data order and masks");
  flags.add_switch("--deterministic", &c.deterministic, "bitwise-reproducible results under any machine load");
  flags.add("--out", &c.out, "DIR", "checkpoints (last.safetensors, best.safetensors) and metrics.json");
  flags.add("--resume", &c.resume, "FILE", "continue a run from its checkpoint (same flags)");
  flags.add("--stop-after", &c.stop_after, "N", "stop after N epochs of this run (0: run all; --resume later)");
  flags.add("--transcribe", &transcribe, "CHECKPOINT", "print the transcripts of the FILE arguments");
  double max_cer = 0;
  flags.add("--max-cer", &max_cer, "X", "exit with 1 if the final greedy CER on --eval-subset is higher (0: no bar)");
  bool no_progress = false;
  flags.add_switch("--no-progress", &no_progress, "one line per 10 s instead of a live progress bar");
  const std::vector<std::string> files = flags.parse(argc, argv);
  c.progress = !no_progress;
  if (transcribe.empty() && !files.empty()) fail("ember-asr", "unexpected argument '" + files[0] + "' (see --help)", 2);
  if (!transcribe.empty() && files.empty()) fail("ember-asr", "--transcribe needs one or more audio FILE arguments", 2);
  if (c.input_type != "mfcc" && c.input_type != "power_spectrum")
    fail("ember-asr", "unknown --input-type '" + c.input_type + "' (expected mfcc or power_spectrum)", 2);
  if (max_cer < 0) fail("ember-asr", "--max-cer must be >= 0", 2);
  try {
    if (!transcribe.empty()) {
      const std::vector<std::string> texts =
          app::transcribe_files(transcribe, files, {.beam = c.beam, .lexicon = c.lexicon});
      for (size_t i = 0; i < files.size(); ++i) std::printf("%s\t%s\n", files[i].c_str(), texts[i].c_str());
      return 0;
    }
    if (c.data.empty()) c.data = ember::apps::default_speech_corpus();
    const app::AsrResult r = app::train_asr(c);
    if (max_cer > 0 && r.evaluated && r.greedy.cer > max_cer) {
      std::fprintf(stderr, "ember-asr: greedy CER %.4f on %s is above --max-cer %.4f\n", r.greedy.cer,
                   c.eval_subset.c_str(), max_cer);
      return 1;
    }
  } catch (const std::exception& e) {
    fail("ember-asr", e.what());
  }
  return 0;
}
