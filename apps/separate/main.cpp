// ember-separate: trains ConvTasNet to separate two-speaker mixtures (see
// docs/audio.md, "The ember-separate pipeline", and `ember-separate --help`).
// With no arguments it trains the small default model on the spoken-digits
// corpus's Libri2Mix and reports the SI-SNR improvement on held-out speakers;
// --separate CHECKPOINT MIX.wav... separates recordings with a checkpoint.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>

#include <ember/core/error.h>

#include "common/flags.h"
#include "common/speech_corpus.h"
#include "separate/separate_files.h"
#include "separate/separate_trainer.h"

int main(int argc, char** argv) {
  using ember::apps::Flags;
  using ember::apps::fail;
  namespace app = ember::apps::separate_app;
  const char* program = "ember-separate";
  app::SeparateConfig c;
  std::string separate;
  Flags flags(program,
              "Trains ConvTasNet (torchaudio's model and recipe: Adam, permutation-invariant SI-SNR loss on random\n"
              "fixed-length segments, gradient clipping, ReduceLROnPlateau on the dev SI-SNRi) to separate\n"
              "two-speaker mixtures of a Libri2Mix layout (DATA/Libri2Mix/wav8k/min/{train-100,dev,test}) or a\n"
              "wsj0-mix layout (DATA/{tr,cv,tt}); reports the SI-SNR improvement (dB) on the test split's held-out\n"
              "speakers, writes separated WAVs of some of them to OUT/separated/, and saves a resumable checkpoint\n"
              "and metrics.json in OUT. Without --data it trains on the spoken-digits corpus the build renders\n"
              "(scripts/make_speech.sh; $EMBER_SPEECH_CORPUS overrides its place).\n"
              "--separate CHECKPOINT MIX.wav... writes OUT/<name>_s1.wav, OUT/<name>_s2.wav for each file.",
              "[MIX.wav...]");
  flags.add("--data", &c.data, "DIR", "corpus root (librimix: holds Libri2Mix/; wsj0mix: holds tr/ cv/ tt/)");
  flags.add("--layout", &c.layout, "NAME", "librimix or wsj0mix");
  flags.add("--task", &c.task, "NAME", "librimix: sep_clean (mix_clean) or sep_noisy (mix_both)");
  flags.add("--train-subset", &c.train_subset, "NAME", "librimix: train-100 or train-360");
  flags.add("--num-speakers", &c.num_speakers, "N", "sources per mixture (2 or 3)");
  flags.add("--sample-rate", &c.sample_rate, "HZ", "8000 or 16000");
  flags.add_switch("--base", &c.base, "train conv_tasnet_base (N 512, L 16, B 128, H 512, X 8, R 3, ReLU masks; "
                                      "4.99 M parameters) instead of the small model");
  flags.add("--enc-kernel", &c.model.enc_kernel_size, "L", "encoder window (stride L/2)");
  flags.add("--enc-feats", &c.model.enc_num_feats, "N", "encoder filters");
  flags.add("--msk-feats", &c.model.msk_num_feats, "B", "mask generator bottleneck channels");
  flags.add("--msk-hidden", &c.model.msk_num_hidden_feats, "H", "mask generator conv block channels");
  flags.add("--msk-layers", &c.model.msk_num_layers, "X", "conv blocks per stack (dilations 1 .. 2^(X-1))");
  flags.add("--msk-stacks", &c.model.msk_num_stacks, "R", "stacks of conv blocks");
  flags.add("--msk-activate", &c.model.msk_activate, "NAME", "mask activation: sigmoid or relu");
  flags.add("--segment", &c.segment_seconds, "SECONDS", "training segment length");
  flags.add("--batch-size", &c.batch_size, "N", "segments per step");
  flags.add("--epochs", &c.epochs, "N", "passes over the training mixtures (0: 20, 100 with --base, a resumed run's own)");
  flags.add("--lr", &c.lr, "X", "Adam learning rate (0: 3e-3, or the recipe's 1e-3 with --base)");
  flags.add("--clip", &c.clip, "X", "gradient L2 norm clipping");
  flags.add("--patience", &c.patience, "N", "epochs without a better dev SI-SNRi before the lr halves");
  flags.add("--workers", &c.workers, "N", "data loader threads (reading and cropping files)");
  flags.add("--threads", &c.threads, "N", "intra-op threads (0: all cores)");
  flags.add("--seed", &c.seed, "N", "seed of the initialisation, data order and segment offsets");
  flags.add_switch("--deterministic", &c.deterministic, "bitwise-reproducible results under any machine load");
  flags.add("--out", &c.output, "DIR", "checkpoints, metrics.json and separated WAVs go here");
  flags.add("--resume", &c.resume, "FILE", "continue a run from its checkpoint");
  flags.add("--stop-after", &c.stop_after, "N", "stop after N epochs of this run (0: run all; --resume later)");
  flags.add("--examples", &c.examples, "N", "test mixtures whose separations are written to OUT/separated/");
  flags.add("--min-si-snri", &c.min_si_snri, "DB", "exit with 1 if the final test SI-SNRi is lower");
  flags.add("--separate", &separate, "CHECKPOINT", "separate the MIX files given after the options");
  bool no_progress = false;
  flags.add_switch("--no-progress", &no_progress, "one line per 10 s instead of a live progress bar");
  const std::vector<std::string> rest = flags.parse(argc, argv);
  c.progress = !no_progress;
  if (separate.empty() && !rest.empty()) fail(program, "unexpected positional argument (see --help)", 2);
  if (!separate.empty() && rest.empty()) fail(program, "--separate CHECKPOINT needs MIX files to separate", 2);
  if (c.layout != "librimix" && c.layout != "wsj0mix")
    fail(program, "unknown --layout '" + c.layout + "' (expected librimix or wsj0mix)", 2);
  if (c.task != "sep_clean" && c.task != "sep_noisy")
    fail(program, "unknown --task '" + c.task + "' (expected sep_clean or sep_noisy)", 2);
  if (c.model.msk_activate != "sigmoid" && c.model.msk_activate != "relu")
    fail(program, "unknown --msk-activate '" + c.model.msk_activate + "' (expected sigmoid or relu)", 2);
  try {
    if (!separate.empty()) {
      app::separate_files(separate, rest, c.output, std::cout);
      return 0;
    }
    if (c.data.empty()) {
      c.data = ember::apps::default_speech_corpus();
      if (c.layout == "wsj0mix")
        c.data = (std::filesystem::path(c.data) / "wsj0-mix" / (std::to_string(c.num_speakers) + "speakers") /
                  ("wav" + std::to_string(c.sample_rate / 1000) + "k") / "min")
                     .string();
    }
    const app::SeparateResult r = app::train_separate(c);
    if (c.min_si_snri != 0 && r.test_mixtures > 0 && r.test_si_snri < c.min_si_snri) {
      std::fprintf(stderr, "%s: test SI-SNRi %.2f dB is below --min-si-snri %.2f dB\n", program, r.test_si_snri,
                   c.min_si_snri);
      return 1;
    }
  } catch (const std::exception& e) {
    fail(program, e.what());
  }
  return 0;
}
