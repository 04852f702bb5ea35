// ember-text (issue 21): the generated-corpus classifier reaching its stated
// accuracy, the transformer classifier and the language model learning,
// resume equal to an uninterrupted run, --predict from a checkpoint alone
// (both tokenizers), and the program run as a user would, bad input included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/serialize/safetensors.h>

#include "apps_test_util.h"
#include "text/generated_corpus.h"
#include "text/predict.h"
#include "text/text_checkpoint.h"
#include "text/text_trainer.h"

using namespace ember::apps::testing;
namespace app = ember::apps::text_app;
namespace fs = std::filesystem;

namespace text_app_test {

const std::string kText = EMBER_TEXT_BIN;

// One error line on stderr that contains `what`, and the exit code.
void expect_one_error_line(const RunResult& r, int code, const std::string& what) {
  EXPECT_EQ(r.exit_code, code) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("ember-text: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("ember-text: ember-text:"), std::string::npos) << r.err;
}

// The generated news corpus the tests share: 400 training rows per topic.
std::string news_corpus() {
  const auto root = temp_root() / "news_400";
  if (!fs::exists(root / "train.csv"))
    app::write_news_corpus(root.string(), {.train_per_class = 400, .test_per_class = 100, .seed = 3});
  return root.string();
}

// A small WikiText layout cut from the generated corpus's descriptions (the
// tests do not depend on ../shared).
std::string wikitext_corpus() {
  const auto root = temp_root() / "wiki_small";
  if (!fs::exists(root / "wikitext-2" / "wiki.train.tokens")) {
    const std::string text_file = (temp_root() / "news_lines.txt").string();
    std::ifstream in(fs::path(news_corpus()) / "train.csv");
    std::ofstream out(text_file);
    for (std::string line; std::getline(in, line);) out << line.substr(line.find("\",\"") + 3) << '\n';
    out.close();
    app::write_wikitext_from_text(text_file, root.string());
  }
  return root.string();
}

app::TextConfig small_config(const std::string& output) {
  app::TextConfig c;
  c.data = news_corpus();
  c.output = output;
  c.progress = false;
  c.threads = 1;  // one thread: bitwise runs that keep their speed when CI shares the cores
  c.deterministic = true;
  return c;
}

app::TextConfig small_transformer(const std::string& output) {
  app::TextConfig c = small_config(output);
  c.model = "transformer";
  c.embed_dim = 32;
  c.nhead = 2;
  c.layers = 1;
  c.dim_feedforward = 64;
  c.max_len = 48;
  c.batch_size = 32;
  return c;
}

app::TextConfig small_lm(const std::string& output) {
  app::TextConfig c;
  c.task = "lm";
  c.data = wikitext_corpus();
  c.output = output;
  c.progress = false;
  c.threads = 1;  // one thread: bitwise runs that keep their speed when CI shares the cores
  c.deterministic = true;
  c.embed_dim = 32;
  c.nhead = 2;
  c.layers = 1;
  c.dim_feedforward = 64;
  c.batch_size = 10;
  c.bptt = 20;
  return c;
}

TEST(TextApp, GeneratedCorpusIsDeterministicAndInAgNewsLayout) {
  const std::string a = fresh_dir("corpus_a"), b = fresh_dir("corpus_b"), c = fresh_dir("corpus_c");
  EXPECT_EQ(app::write_news_corpus(a, {.train_per_class = 50, .test_per_class = 10, .seed = 1}), 240);
  app::write_news_corpus(b, {.train_per_class = 50, .test_per_class = 10, .seed = 1});
  app::write_news_corpus(c, {.train_per_class = 50, .test_per_class = 10, .seed = 2});
  EXPECT_EQ(slurp(fs::path(a) / "train.csv"), slurp(fs::path(b) / "train.csv"));
  EXPECT_EQ(slurp(fs::path(a) / "test.csv"), slurp(fs::path(b) / "test.csv"));
  EXPECT_NE(slurp(fs::path(a) / "train.csv"), slurp(fs::path(c) / "train.csv"));
  // Every row is "label","title","description" with a label 1..4, 50 of each topic.
  std::ifstream in(fs::path(a) / "train.csv");
  int64_t rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    ASSERT_GE(line.size(), 10u);
    EXPECT_EQ(line[0], '"');
    EXPECT_TRUE(line[1] >= '1' && line[1] <= '4') << line;
    EXPECT_EQ(line.substr(2, 3), "\",\"") << line;
  }
  EXPECT_EQ(rows, 200);
}

// The stated accuracy of docs/text.md on a reduced corpus: the mixed and
// relabelled rows bound it near 90% (this config measured 89.5%, 87.8% and
// 86.0% test accuracy for seeds 0, 1, 2; the test runs seed 0).
TEST(TextApp, EmbeddingBagClassifierReachesItsStatedAccuracy) {
  app::TextConfig c = small_config(fresh_dir("embbag_accuracy"));
  c.data.clear();  // the generated corpus, written under OUTPUT/data
  c.generated_per_class = 1500;
  c.epochs = 5;
  const app::TextResult r = app::train_text(c);
  EXPECT_EQ(r.epochs_done, 5);
  EXPECT_GE(r.test_metric, 0.86);
  EXPECT_LE(r.test_metric, 0.97);  // the noise the corpus was built with is there
  EXPECT_TRUE(fs::exists(fs::path(c.output) / "data" / "train.csv"));
  const std::string metrics = slurp(fs::path(c.output) / "metrics.json");
  for (const char* key : {"\"train_loss\"", "\"val_accuracy\"", "\"tokens_per_s\"", "\"seconds\"",
                          "\"test_accuracy\"", "\"epoch\": 5"})
    EXPECT_NE(metrics.find(key), std::string::npos) << key << "\n" << metrics;
}

// An IMDB layout (aclImdb/{train,test}/{pos,neg}/*.txt) read through
// Ember::text's IMDB dataset: classes neg and pos.
TEST(TextApp, ClassifierReadsAnImdbLayout) {
  const fs::path root = fresh_dir("imdb");
  const char* good[] = {"a wonderful moving film, great acting", "brilliant and beautiful, I loved it",
                        "superb story, wonderful cast"};
  const char* bad[] = {"a boring awful film, terrible acting", "dull and stupid, I hated it",
                       "awful story, terrible cast"};
  for (const char* split : {"train", "test"})
    for (int i = 0; i < (std::string(split) == "train" ? 60 : 12); ++i) {
      for (const char* label : {"pos", "neg"}) {
        fs::create_directories(root / "aclImdb" / split / label);
        std::ofstream f(root / "aclImdb" / split / label / (std::to_string(i) + "_7.txt"));
        f << (std::string(label) == "pos" ? good[i % 3] : bad[i % 3]) << " <br /><br />number " << i;
      }
    }
  app::TextConfig c = small_config(fresh_dir("imdb_out"));
  c.data = root.string();
  c.format = "imdb";
  c.epochs = 4;
  c.val_fraction = 0.1;
  const app::TextResult r = app::train_text(c);
  EXPECT_EQ(r.test_metric, 1.0);
  const app::TextCheckpoint ckpt = app::load_text_checkpoint(r.checkpoint);
  EXPECT_EQ(ckpt.state.classes, (std::vector<std::string>{"neg", "pos"}));
  std::istringstream in("wonderful acting, I loved it\nterrible and boring\n");
  std::ostringstream out;
  app::predict_lines(r.checkpoint, in, out);
  EXPECT_EQ(out.str().rfind("pos\t", 0), 0u) << out.str();
  EXPECT_NE(out.str().find("\nneg\t"), std::string::npos) << out.str();
}

TEST(TextApp, TransformerClassifierLearns) {
  app::TextConfig c = small_transformer(fresh_dir("transformer_learns"));
  c.epochs = 2;
  const app::TextResult r = app::train_text(c);
  const app::TextCheckpoint ckpt = app::load_text_checkpoint(r.checkpoint);
  ASSERT_EQ(ckpt.state.history.size(), 2u);
  EXPECT_LT(ckpt.state.history[1].train_loss, ckpt.state.history[0].train_loss);
  EXPECT_LT(ckpt.state.history[0].train_loss, std::log(4.0));  // below chance already
  EXPECT_GT(r.test_metric, 0.6);                               // chance: 0.25
  EXPECT_EQ(ckpt.spec.model, "transformer");
  EXPECT_EQ(ckpt.spec.embed_dim, 32);
  EXPECT_EQ(ckpt.pipeline.vocab().lookup_token(ckpt.spec.pad_index), "<pad>");
}

TEST(TextApp, LanguageModelLearnsAndReportsPerplexity) {
  app::TextConfig c = small_lm(fresh_dir("lm_learns"));
  c.epochs = 2;
  const app::TextResult r = app::train_text(c);
  const app::TextCheckpoint ckpt = app::load_text_checkpoint(r.checkpoint);
  ASSERT_EQ(ckpt.state.history.size(), 2u);
  EXPECT_LT(ckpt.state.history[1].train_loss, ckpt.state.history[0].train_loss);
  EXPECT_LT(ckpt.state.history[1].val_metric, ckpt.state.history[0].val_metric);
  // Finite, and far below a uniform guess over the vocabulary.
  EXPECT_TRUE(std::isfinite(r.test_metric));
  EXPECT_GT(r.test_metric, 1.0);
  EXPECT_LT(r.test_metric, 0.2 * static_cast<double>(ckpt.spec.vocab_size));
  EXPECT_NEAR(r.test_metric, std::exp(r.test_loss), 1e-9 * r.test_metric);
  EXPECT_EQ(ckpt.pipeline.vocab().lookup_token(1), "<eos>");
  EXPECT_NE(slurp(fs::path(c.output) / "metrics.json").find("\"test_perplexity\""), std::string::npos);
}

// Bitwise: every tensor of the final checkpoints (weights, optimizer state,
// generator) and the metrics of each epoch.
void expect_same_checkpoints(const std::string& a, const std::string& b) {
  const app::TextCheckpoint x = app::load_text_checkpoint(a), y = app::load_text_checkpoint(b);
  ASSERT_EQ(x.tensors.size(), y.tensors.size());
  for (const auto& [key, t] : x.tensors) {
    const ember::Tensor* u = y.tensors.find(key);
    ASSERT_NE(u, nullptr) << key;
    EXPECT_TRUE(t.equal(*u)) << key;
  }
  ASSERT_EQ(x.state.history.size(), y.state.history.size());
  for (size_t i = 0; i < x.state.history.size(); ++i) {
    EXPECT_EQ(x.state.history[i].train_loss, y.state.history[i].train_loss) << i;
    EXPECT_EQ(x.state.history[i].val_metric, y.state.history[i].val_metric) << i;
    EXPECT_EQ(x.state.history[i].lr, y.state.history[i].lr) << i;
  }
}

TEST(TextApp, ResumedTransformerClassifierEqualsAnUninterruptedRun) {
  app::TextConfig whole = small_transformer(fresh_dir("resume_cls_whole"));
  whole.epochs = 2;
  whole.tokenizer = "sentencepiece";
  whole.sp_vocab_size = 200;
  const app::TextResult a = app::train_text(whole);

  app::TextConfig first = whole;
  first.output = fresh_dir("resume_cls_parts");
  first.stop_after = 1;
  EXPECT_EQ(app::train_text(first).epochs_done, 1);
  app::TextConfig rest = whole;
  rest.output = first.output;
  rest.resume = (fs::path(first.output) / "checkpoint.safetensors").string();
  const app::TextResult b = app::train_text(rest);
  EXPECT_EQ(b.epochs_done, 2);
  EXPECT_EQ(a.test_metric, b.test_metric);
  EXPECT_EQ(a.test_loss, b.test_loss);
  expect_same_checkpoints(a.checkpoint, b.checkpoint);
  // The resumed run's metrics.json lists both epochs.
  EXPECT_NE(slurp(fs::path(rest.output) / "metrics.json").find("\"epoch\": 1,"), std::string::npos);
}

TEST(TextApp, ResumedLanguageModelEqualsAnUninterruptedRun) {
  app::TextConfig whole = small_lm(fresh_dir("resume_lm_whole"));
  whole.epochs = 2;
  const app::TextResult a = app::train_text(whole);
  app::TextConfig first = whole;
  first.output = fresh_dir("resume_lm_parts");
  first.stop_after = 1;
  app::train_text(first);
  app::TextConfig rest = whole;
  rest.output = first.output;
  rest.resume = (fs::path(first.output) / "checkpoint.safetensors").string();
  const app::TextResult b = app::train_text(rest);
  EXPECT_EQ(a.test_metric, b.test_metric);
  expect_same_checkpoints(a.checkpoint, b.checkpoint);
}

TEST(TextApp, ResumeRefusesAnotherTaskOrModel) {
  app::TextConfig c = small_config(fresh_dir("resume_mismatch"));
  c.epochs = 1;
  const app::TextResult r = app::train_text(c);
  app::TextConfig lm = small_lm(fresh_dir("resume_mismatch_lm"));
  lm.resume = r.checkpoint;
  EXPECT_THROW(
      {
        try {
          app::train_text(lm);
        } catch (const ember::Error& e) {
          EXPECT_NE(std::string(e.what()).find("is for --task classify, not lm"), std::string::npos) << e.what();
          throw;
        }
      },
      ember::Error);
  app::TextConfig other = small_transformer(fresh_dir("resume_mismatch_model"));
  other.resume = r.checkpoint;
  EXPECT_THROW(app::train_text(other), ember::Error);
}

// --predict from the checkpoint alone (the corpus deleted), for both
// tokenizers: every line gets a class name and a probability, and clear
// sentences get their topic.
TEST(TextApp, PredictLabelsLinesFromACheckpointAlone) {
  for (const std::string tokenizer : {"basic_english", "sentencepiece"}) {
    SCOPED_TRACE(tokenizer);
    app::TextConfig c = small_config(fresh_dir("predict_" + tokenizer));
    c.data.clear();
    c.generated_per_class = 300;
    c.epochs = 4;
    c.tokenizer = tokenizer;
    c.sp_vocab_size = 250;
    const app::TextResult r = app::train_text(c);
    fs::remove_all(fs::path(c.output) / "data");
    std::istringstream in(
        "The striker scored in the final match at the stadium\n"
        "Investors cut interest rates on the stock market\n"
        "\n"
        "Scientists discovered a distant galaxy in orbit\n"
        "The prime minister signed a border treaty in the capital\n");
    std::ostringstream out;
    EXPECT_EQ(app::predict_lines(r.checkpoint, in, out), 5);
    std::istringstream lines(out.str());
    std::vector<std::string> labels;
    for (std::string line; std::getline(lines, line);) {
      const size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
      ASSERT_NE(tab2, std::string::npos) << line;
      labels.push_back(line.substr(0, tab1));
      const double p = std::stod(line.substr(tab1 + 1, tab2 - tab1 - 1));
      EXPECT_GT(p, 0.25);
      EXPECT_LE(p, 1.0);
    }
    ASSERT_EQ(labels.size(), 5u);
    EXPECT_EQ(labels[0], "Sports");
    EXPECT_EQ(labels[1], "Business");
    EXPECT_EQ(labels[3], "Sci/Tech");
    EXPECT_EQ(labels[4], "World");
    const app::TextCheckpoint ckpt = app::load_text_checkpoint(r.checkpoint);
    EXPECT_EQ(ckpt.pipeline.kind(), tokenizer);
    EXPECT_EQ(ckpt.pipeline.sp_model().empty(), tokenizer == "basic_english");
    EXPECT_EQ(ckpt.state.classes, app::news_topics());
  }
}

TEST(TextApp, PredictGivesPerplexitiesWithALanguageModel) {
  app::TextConfig c = small_lm(fresh_dir("predict_lm"));
  c.epochs = 2;
  c.tokenizer = "sentencepiece";
  c.sp_vocab_size = 300;
  const app::TextResult r = app::train_text(c);
  std::istringstream in("investors cut interest rates on the stock market.\nzebra quantum teapot xylophone\n");
  std::ostringstream out;
  EXPECT_EQ(app::predict_lines(r.checkpoint, in, out), 2);
  std::istringstream lines(out.str());
  std::vector<double> ppl;
  for (std::string line; std::getline(lines, line);) ppl.push_back(std::stod(line.substr(0, line.find('\t'))));
  ASSERT_EQ(ppl.size(), 2u);
  EXPECT_TRUE(std::isfinite(ppl[0]) && std::isfinite(ppl[1]));
  EXPECT_GT(ppl[0], 1.0);
  EXPECT_LT(ppl[0], ppl[1]);  // a corpus-like sentence is far likelier than nonsense
}

TEST(TextApp, ProgramTrainsPredictsAndWritesFiles) {
  const std::string out = fresh_dir("program_run");
  const RunResult r = run(kText + " --generated-per-class 300 --epochs 3 --no-progress --min-accuracy 0.5 --output " +
                          out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* line : {"data: generated 1600 news rows of 4 topics", "basic_english tokenizer, vocabulary of",
                           "model: embbag", "epoch 3/3: train loss", "test: loss", "done: 3/3 epochs"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  for (const char* file : {"checkpoint.safetensors", "best.safetensors", "metrics.json", "data/train.csv"})
    EXPECT_TRUE(fs::exists(fs::path(out) / file)) << file;
  {
    std::ofstream lines(fs::path(out) / "lines.txt");
    lines << "the coach won the championship\nthe chipmaker unveiled a new processor\n";
  }
  const RunResult p = run(kText + " --predict " + out + "/checkpoint.safetensors " + out + "/lines.txt");
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out.rfind("Sports\t", 0), 0u) << p.out;
  EXPECT_NE(p.out.find("\nSci/Tech\t"), std::string::npos) << p.out;
  const RunResult s = run("echo 'shareholders sold its shares' | " + kText + " --predict " + out +
                          "/checkpoint.safetensors -");
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out.rfind("Business\t", 0), 0u) << s.out;
  // Below --min-accuracy: exit 1 after the run, the error as the last line
  // on standard error (after the progress lines).
  const RunResult low = run(kText + " --data " + out + "/data --epochs 1 --no-progress --min-accuracy 0.999 --output " +
                            fresh_dir("program_low"));
  EXPECT_EQ(low.exit_code, 1);
  const std::string last_line = low.err.substr(low.err.rfind('\n', low.err.size() - 2) + 1);
  EXPECT_EQ(last_line.rfind("ember-text: test accuracy ", 0), 0u) << low.err;
  EXPECT_NE(last_line.find("is below --min-accuracy 0.9990"), std::string::npos) << low.err;
}

// --task lm --from-text: a plain text file split into a WikiText layout
// under OUTPUT/data, then --predict with the LM checkpoint.
TEST(TextApp, ProgramTrainsALanguageModelFromText) {
  const std::string out = fresh_dir("program_lm");
  {
    std::ifstream in(fs::path(wikitext_corpus()) / "wikitext-2" / "wiki.train.tokens");
    std::ofstream text(fs::path(out) / "plain.txt");
    int n = 0;
    for (std::string line; n < 400 && std::getline(in, line); ++n) text << line << '\n';
  }
  const RunResult r = run(kText + " --task lm --from-text " + out + "/plain.txt --epochs 1 --embed-dim 16 --nhead 2 " +
                          "--layers 1 --dim-feedforward 32 --batch-size 4 --no-progress --output " + out + "/run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* line : {"data: split 400 lines of", "wiki.{train,valid,test}.tokens (80/10/10%)",
                           "model: transformer LM, d_model 16", "valid ppl", "test: loss", "done: 1/1 epochs"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  for (const char* split : {"train", "valid", "test"})
    EXPECT_TRUE(fs::exists(fs::path(out) / "run" / "data" / "wikitext-2" / ("wiki." + std::string(split) + ".tokens")));
  const RunResult p = run("echo 'investors cut interest rates' | " + kText + " --predict " + out +
                          "/run/checkpoint.safetensors");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const double ppl = std::stod(p.out.substr(0, p.out.find('\t')));
  EXPECT_TRUE(std::isfinite(ppl) && ppl > 1.0) << p.out;
  EXPECT_NE(p.out.find("\tinvestors cut interest rates\n"), std::string::npos) << p.out;
}

TEST(TextApp, ProgramBadInputGivesOneErrorLine) {
  const std::string out = fresh_dir("program_errors");
  expect_one_error_line(run(kText + " --task translate"), 2, "unknown --task 'translate' (expected classify or lm)");
  expect_one_error_line(run(kText + " --model lstm"), 2, "unknown --model 'lstm'");
  expect_one_error_line(run(kText + " --tokenizer bpe"), 2, "unknown --tokenizer 'bpe'");
  expect_one_error_line(run(kText + " --epochz 3"), 2, "unknown option '--epochz'");
  expect_one_error_line(run(kText + " stray"), 2, "unexpected positional argument");
  expect_one_error_line(run(kText + " --data " + out + "/nowhere --output " + out), 1,
                        "AG_NEWS: dataset not found: expected train.csv");
  expect_one_error_line(run(kText + " --format imdb --data " + out + "/nowhere --output " + out), 1,
                        "IMDB: dataset not found");
  expect_one_error_line(run(kText + " --task lm --data " + out + "/nowhere --output " + out), 1,
                        "WikiText2: dataset not found");
  expect_one_error_line(run(kText + " --task lm --output " + out), 1, "--task lm needs --data DIR");
  expect_one_error_line(run(kText + " --format csv --data " + news_corpus() + " --output " + out), 1,
                        "unknown --format 'csv'");
  // Checkpoints that are not ember-text ones: a text file, an ember-train-like
  // safetensors file, and a missing file.
  {
    std::ofstream f(fs::path(out) / "notes.txt");
    f << "not a checkpoint\n";
  }
  expect_one_error_line(run(kText + " --predict " + out + "/notes.txt - </dev/null"), 1, "notes.txt");
  ember::Metadata meta;
  meta["ember.checkpoint"] = "ember-train/1";
  ember::save((fs::path(out) / "train.safetensors").string(), ember::StateDict{{"w", ember::zeros({2})}}, meta);
  expect_one_error_line(run(kText + " --predict " + out + "/train.safetensors - </dev/null"), 1,
                        "is not an ember-text checkpoint (no \"ember.checkpoint\": \"ember-text/1\" metadata; it is "
                        "an ember-train/1 checkpoint)");
  expect_one_error_line(run(kText + " --resume " + out + "/train.safetensors --data " + news_corpus() +
                            " --output " + out),
                        1, "is not an ember-text checkpoint");
  expect_one_error_line(run(kText + " --predict " + out + "/missing.safetensors - </dev/null"), 1,
                        "missing.safetensors");
  expect_one_error_line(run(kText + " --predict " + out + "/train.safetensors " + out + "/no_such_input.txt"), 1,
                        "cannot read");
}

TEST(TextApp, HelpListsTheOptions) {
  const RunResult h = run(kText + " --help");
  EXPECT_EQ(h.exit_code, 0);
  for (const char* flag : {"--task", "--data", "--format", "--from-text", "--model", "--tokenizer", "--sp-vocab-size",
                           "--bptt", "--resume", "--stop-after", "--predict", "--min-accuracy", "--no-progress"})
    EXPECT_NE(h.out.find(flag), std::string::npos) << flag;
}

}  // namespace text_app_test
