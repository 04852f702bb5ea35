#pragma once
// ember-text's run configuration and result: a text classifier (AG_NEWS or
// IMDB layout, EmbeddingBag or Transformer encoder) or a Transformer language
// model (WikiText layout), with a basic_english or SentencePiece tokenizer.
#include <cstdint>
#include <string>

namespace ember::apps::text_app {

struct TextConfig {
  std::string task = "classify";       // classify or lm
  std::string data;                    // corpus root; empty: generated (classify) or --from-text (lm)
  std::string format;                  // classify: ag_news (default) or imdb; lm: wikitext2 (default), wikitext103, ptb
  std::string from_text;               // lm: a plain text file split into a WikiText layout under OUTPUT/data
  int64_t from_text_lines = 0;         // lm: the first N lines of --from-text only (0: all)
  int64_t generated_per_class = 3000;  // training rows per topic of the generated corpus
  std::string model;                   // classify: embbag (default) or transformer; lm: transformer
  std::string tokenizer = "basic_english";  // or sentencepiece (trained on the training split)
  int64_t sp_vocab_size = 2000;
  std::string sp_model_type = "unigram";
  int64_t min_freq = 1;                // vocabulary: tokens seen fewer times map to <unk>
  // Model size (0: the model's default; see text_models.h).
  int64_t embed_dim = 0, nhead = 0, layers = 0, dim_feedforward = 0;
  double dropout = -1;                 // < 0: the model's default
  int64_t max_len = 256;               // classify (transformer): tokens kept per text
  int64_t epochs = 0;                  // 0: the task's default
  int64_t batch_size = 0;              // 0: 64 classify, 20 lm
  int64_t bptt = 35;                   // lm: sequence length of a step
  double lr = 0;                       // 0: the model's default
  double clip = -1;                    // gradient norm clipping; < 0: the model's default
  double val_fraction = 0.05;          // classify: training rows held out for validation
  int64_t threads = 0;                 // intra-op threads; 0: Ember's default
  int64_t seed = 0;
  bool deterministic = false;          // bitwise-reproducible under any machine load
  std::string output = "ember-text-out";
  std::string resume;
  int64_t stop_after = 0;              // stop after N epochs of this run (0: all)
  double min_accuracy = 0;             // classify: exit 1 when the test accuracy is lower
  bool progress = true;
};

struct TextResult {
  int64_t epochs_done = 0;
  double final_train_loss = 0;
  double val_metric = 0;   // accuracy (classify) or perplexity (lm) of the last epoch
  double test_metric = 0;  // the same on the test split, after the last epoch
  double test_loss = 0;
  std::string checkpoint;
};

}  // namespace ember::apps::text_app
