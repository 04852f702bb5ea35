// ember-text: trains a text classifier or a Transformer language model (see
// docs/text.md, "The ember-text app", and `ember-text --help`). With no
// arguments it writes a generated news corpus in AG_NEWS layout and trains an
// EmbeddingBag classifier on it.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>

#include <ember/core/error.h>

#include "common/flags.h"
#include "text/predict.h"
#include "text/text_trainer.h"

int main(int argc, char** argv) {
  using ember::apps::Flags;
  using ember::apps::fail;
  namespace app = ember::apps::text_app;
  app::TextConfig c;
  std::string predict;
  Flags flags("ember-text",
              "Trains a text classifier (AG_NEWS or IMDB layout; EmbeddingBag or Transformer encoder) or a\n"
              "Transformer language model (WikiText layout; reports perplexity), tokenizing with basic_english\n"
              "or a SentencePiece model trained on the training split. Evaluates every epoch and saves a\n"
              "resumable checkpoint (model, optimizer, tokenizer, vocabulary) and metrics.json in --output.\n"
              "Without --data it writes a generated news corpus under OUTPUT/data and trains on it.\n"
              "--predict CHECKPOINT [FILE|-] labels each line (classifier) or gives its perplexity (LM).",
              "[FILE|-]");
  flags.add("--task", &c.task, "NAME", "classify or lm");
  flags.add("--data", &c.data, "DIR", "corpus root (AG_NEWS: train.csv/test.csv; IMDB: aclImdb/; WikiText: wikitext-2/)");
  flags.add("--format", &c.format, "NAME", "classify: ag_news or imdb; lm: wikitext2, wikitext103 or ptb");
  flags.add("--from-text", &c.from_text, "FILE", "lm: split a plain text file into a WikiText layout under OUTPUT/data");
  flags.add("--from-text-lines", &c.from_text_lines, "N", "lm: use the first N lines of --from-text (0: all)");
  flags.add("--generated-per-class", &c.generated_per_class, "N", "training rows per topic of the generated corpus");
  flags.add("--model", &c.model, "NAME", "classify: embbag or transformer; lm: transformer");
  flags.add("--tokenizer", &c.tokenizer, "NAME", "basic_english or sentencepiece (trained on the training split)");
  flags.add("--sp-vocab-size", &c.sp_vocab_size, "N", "SentencePiece vocabulary size");
  flags.add("--sp-model-type", &c.sp_model_type, "NAME", "unigram, bpe, char or word");
  flags.add("--min-freq", &c.min_freq, "N", "vocabulary: tokens seen fewer times become <unk>");
  flags.add("--embed-dim", &c.embed_dim, "N", "embedding / d_model (0: 64 classifiers, 200 lm)");
  flags.add("--nhead", &c.nhead, "N", "transformer heads (0: 4 classifier, 2 lm)");
  flags.add("--layers", &c.layers, "N", "transformer layers (0: 2)");
  flags.add("--dim-feedforward", &c.dim_feedforward, "N", "transformer feed-forward width (0: 128 classifier, 200 lm)");
  flags.add("--dropout", &c.dropout, "X", "transformer dropout (< 0: 0.1 classifier, 0.2 lm)");
  flags.add("--max-len", &c.max_len, "N", "transformer classifier: tokens kept per text");
  flags.add("--epochs", &c.epochs, "N", "passes over the training data (0: 10 embbag, 6 transformer, 3 lm)");
  flags.add("--batch-size", &c.batch_size, "N", "texts (classify) or columns (lm) per step (0: 64, 20)");
  flags.add("--bptt", &c.bptt, "N", "lm: tokens per sequence of a step");
  flags.add("--lr", &c.lr, "X", "learning rate (0: sgd 5 embbag and lm, adamw 5e-4 transformer classifier)");
  flags.add("--clip", &c.clip, "X", "gradient norm clipping (< 0: 0.1 embbag, 1 transformer, 0.5 lm)");
  flags.add("--val-fraction", &c.val_fraction, "X", "classify: training rows held out for validation");
  flags.add("--threads", &c.threads, "N", "intra-op threads (0: all cores)");
  flags.add("--seed", &c.seed, "N", "seed of the initialisation, data order, dropout and generated corpus");
  flags.add_switch("--deterministic", &c.deterministic, "bitwise-reproducible results under any machine load");
  flags.add("--output", &c.output, "DIR", "checkpoints, metrics.json and generated data go here");
  flags.add("--resume", &c.resume, "FILE", "continue a run from its checkpoint");
  flags.add("--stop-after", &c.stop_after, "N", "stop after N epochs of this run (0: run all; --resume later)");
  flags.add("--min-accuracy", &c.min_accuracy, "X", "classify: exit with 1 if the final test accuracy is lower");
  flags.add("--predict", &predict, "CHECKPOINT", "label lines of FILE (or standard input) with a checkpoint");
  bool no_progress = false;
  flags.add_switch("--no-progress", &no_progress, "one line per 10 s instead of a live progress bar");
  const std::vector<std::string> rest = flags.parse(argc, argv);
  c.progress = !no_progress;
  if (predict.empty() && !rest.empty()) fail("ember-text", "unexpected positional argument (see --help)", 2);
  if (rest.size() > 1) fail("ember-text", "--predict reads one FILE or - (standard input)", 2);
  if (c.task != "classify" && c.task != "lm")
    fail("ember-text", "unknown --task '" + c.task + "' (expected classify or lm)", 2);
  if (c.tokenizer != "basic_english" && c.tokenizer != "sentencepiece")
    fail("ember-text", "unknown --tokenizer '" + c.tokenizer + "' (expected basic_english or sentencepiece)", 2);
  if (!c.model.empty() && c.model != "embbag" && c.model != "transformer")
    fail("ember-text", "unknown --model '" + c.model + "' (expected embbag or transformer)", 2);
  if (c.task == "lm" && c.model == "embbag")
    fail("ember-text", "--task lm trains a transformer (--model embbag is a classifier)", 2);
  try {
    if (!predict.empty()) {
      if (rest.empty() || rest[0] == "-") {
        app::predict_lines(predict, std::cin, std::cout);
      } else {
        std::ifstream in(rest[0], std::ios::binary);
        if (!in) fail("ember-text", "cannot read '" + rest[0] + "'");
        app::predict_lines(predict, in, std::cout);
      }
      return 0;
    }
    const app::TextResult r = app::train_text(c);
    if (c.task == "classify" && c.min_accuracy > 0 && r.test_metric < c.min_accuracy) {
      std::fprintf(stderr, "ember-text: test accuracy %.4f is below --min-accuracy %.4f\n", r.test_metric,
                   c.min_accuracy);
      return 1;
    }
  } catch (const std::exception& e) {
    fail("ember-text", e.what());
  }
  return 0;
}
