#include "classify_task.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include <ember/autograd/grad_mode.h>
#include <ember/datasets/progress.h>
#include <ember/nn/functional/loss.h>
#include <ember/nn/utils/clip_grad.h>
#include <ember/ops/factories.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/text/lm_batching.h>
#include <ember/text/text_datasets.h>

#include "generated_corpus.h"
#include "run_common.h"
#include "text_pipeline.h"

namespace ember::apps::text_app {
namespace {

namespace fs = std::filesystem;
namespace F = nn::functional;

constexpr const char* kPad = "<pad>";

struct Split {
  std::vector<std::string> texts;
  std::vector<int64_t> labels;  // 0-based
  std::vector<std::vector<int64_t>> ids;
};

struct Corpus {
  std::string description;
  std::vector<std::string> classes;
  Split train, val, test;
};

std::string prepare_root(const TextConfig& c) {
  if (!c.data.empty()) return c.data;
  const std::string root = (fs::path(c.output) / "data").string();
  if (!fs::exists(fs::path(root) / "train.csv")) {
    const auto t0 = Clock::now();
    const int64_t rows = write_news_corpus(
        root, {.train_per_class = c.generated_per_class, .test_per_class = std::max<int64_t>(100, c.generated_per_class / 6),
               .seed = static_cast<uint64_t>(c.seed)});
    std::printf("data: generated %lld news rows of %zu topics (AG_NEWS layout) in %s in %.1f s\n",
                static_cast<long long>(rows), news_topics().size(), root.c_str(), seconds_since(t0));
  } else {
    std::printf("data: reusing the generated corpus in %s (delete it to generate it again)\n", root.c_str());
  }
  return root;
}

template <class Dataset>
Split read_split(const std::string& root, const std::string& split) {
  Dataset dataset(root, split);
  Split s;
  auto it = dataset.iter(datasets::WorkerInfo{});
  while (auto record = it->next()) {
    s.labels.push_back(record->first - 1);
    s.texts.push_back(std::move(record->second));
  }
  return s;
}

// Holds out val_fraction of the training rows (a seeded permutation, drawn
// with mt19937_64 so it is the same with every standard library).
void hold_out(Split& train, Split& val, double fraction, uint64_t seed) {
  const size_t n = train.texts.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed ^ 0x5eedULL);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  const size_t n_val = static_cast<size_t>(std::llround(fraction * static_cast<double>(n)));
  EMBER_CHECK(n_val >= 1 && n_val < n, "ember-text: --val-fraction ", fraction, " of ", n,
              " training rows leaves no validation or no training rows");
  std::vector<bool> is_val(n, false);
  for (size_t i = 0; i < n_val; ++i) is_val[order[i]] = true;
  Split kept;
  for (size_t i = 0; i < n; ++i) {
    Split& to = is_val[i] ? val : kept;
    to.texts.push_back(std::move(train.texts[i]));
    to.labels.push_back(train.labels[i]);
  }
  train = std::move(kept);
}

Corpus read_corpus(const TextConfig& c) {
  const std::string root = prepare_root(c);
  const std::string format = c.format.empty() ? "ag_news" : c.format;
  Corpus corpus;
  if (format == "ag_news") {
    corpus.train = read_split<text::AG_NEWS>(root, "train");
    corpus.test = read_split<text::AG_NEWS>(root, "test");
    corpus.classes = news_topics();
  } else if (format == "imdb") {
    corpus.train = read_split<text::IMDB>(root, "train");
    corpus.test = read_split<text::IMDB>(root, "test");
    corpus.classes = {"neg", "pos"};
  } else {
    EMBER_FAIL("ember-text: unknown --format '", format, "' for --task classify (expected ag_news or imdb)");
  }
  EMBER_CHECK(!corpus.train.texts.empty() && !corpus.test.texts.empty(), "ember-text: the ", format, " corpus in '",
              root, "' has an empty train or test split");
  hold_out(corpus.train, corpus.val, c.val_fraction, static_cast<uint64_t>(c.seed));
  corpus.description = format + " in " + root + ": " + std::to_string(corpus.train.texts.size()) + " train, " +
                       std::to_string(corpus.val.texts.size()) + " validation, " +
                       std::to_string(corpus.test.texts.size()) + " test rows";
  return corpus;
}

// Ids of each text, at most max_len of them (the transformer's positions);
// a text without tokens becomes one <unk>, so no bag or sequence is empty.
void numericalize(Split& s, const TextPipeline& pipeline, int64_t max_len) {
  s.ids = pipeline.ids(s.texts);
  for (auto& ids : s.ids) {
    if (max_len > 0 && static_cast<int64_t>(ids.size()) > max_len) ids.resize(static_cast<size_t>(max_len));
    if (ids.empty()) ids.push_back(0);
  }
}

struct Evaluation {
  double accuracy = 0, loss = 0;
};

Evaluation evaluate(const TextModel& model, const Split& s, int64_t batch_size) {
  model.module().eval();
  NoGradGuard no_grad;
  int64_t correct = 0;
  double loss_sum = 0;
  const int64_t n = static_cast<int64_t>(s.ids.size());
  for (int64_t begin = 0; begin < n; begin += batch_size) {
    const int64_t end = std::min(n, begin + batch_size);
    std::vector<const std::vector<int64_t>*> texts;
    std::vector<int64_t> labels;
    for (int64_t i = begin; i < end; ++i) {
      texts.push_back(&s.ids[static_cast<size_t>(i)]);
      labels.push_back(s.labels[static_cast<size_t>(i)]);
    }
    const Tensor target = tensor(labels, kInt64);
    const Tensor logits = classifier_logits(model, make_classifier_batch(model.spec, texts));
    loss_sum += F::cross_entropy(logits, target).item<double>() * static_cast<double>(end - begin);
    correct += logits.argmax(1).eq(target).sum().item<int64_t>();
  }
  return {static_cast<double>(correct) / static_cast<double>(n), loss_sum / static_cast<double>(n)};
}

}  // namespace

ClassifierBatch make_classifier_batch(const ModelSpec& spec, const std::vector<const std::vector<int64_t>*>& texts) {
  ClassifierBatch b;
  if (spec.model == "embbag") {
    std::vector<int64_t> ids, offsets;
    for (const auto* t : texts) {
      offsets.push_back(static_cast<int64_t>(ids.size()));
      ids.insert(ids.end(), t->begin(), t->end());
    }
    b.ids = tensor(ids, kInt64);
    b.offsets = tensor(offsets, kInt64);
    return b;
  }
  size_t longest = 0;
  for (const auto* t : texts) longest = std::max(longest, t->size());
  const int64_t S = static_cast<int64_t>(longest), B = static_cast<int64_t>(texts.size());
  b.ids = full({S, B}, spec.pad_index, kInt64);
  int64_t* p = b.ids.data_ptr<int64_t>();
  for (int64_t j = 0; j < B; ++j)
    for (size_t s = 0; s < texts[static_cast<size_t>(j)]->size(); ++s)
      p[static_cast<int64_t>(s) * B + j] = (*texts[static_cast<size_t>(j)])[s];
  return b;
}

Tensor classifier_logits(const TextModel& model, const ClassifierBatch& batch) {
  if (model.embbag) return model.embbag->forward(batch.ids, batch.offsets);
  return model.classifier->forward(batch.ids);
}

TextResult train_classifier(const TextConfig& c) {
  const auto t_start = Clock::now();
  RunScope scope(c);
  fs::create_directories(c.output);
  std::optional<TextCheckpoint> resume = load_resume(c, "classify");
  const std::string model_name = c.model.empty() ? "embbag" : c.model;
  EMBER_CHECK(model_name == "embbag" || model_name == "transformer", "ember-text: unknown --model '", model_name,
              "' for --task classify (expected embbag or transformer)");
  EMBER_CHECK(c.tokenizer == "basic_english" || c.tokenizer == "sentencepiece", "ember-text: unknown --tokenizer '",
              c.tokenizer, "' (expected basic_english or sentencepiece)");
  const int64_t epochs = c.epochs > 0 ? c.epochs : (model_name == "embbag" ? 10 : 6);
  const int64_t batch_size = c.batch_size > 0 ? c.batch_size : 64;

  Corpus corpus = read_corpus(c);
  std::printf("data: %s; %zu classes\n", corpus.description.c_str(), corpus.classes.size());
  const auto t_tok = Clock::now();
  TextPipeline pipeline = resume ? resume->pipeline
                                 : build_pipeline(corpus.train.texts, {.tokenizer = c.tokenizer,
                                                                       .sp_vocab_size = c.sp_vocab_size,
                                                                       .sp_model_type = c.sp_model_type,
                                                                       .min_freq = c.min_freq,
                                                                       .specials = {kUnk, kPad}});
  const int64_t max_len = model_name == "transformer" ? c.max_len : 0;
  for (Split* s : {&corpus.train, &corpus.val, &corpus.test}) numericalize(*s, pipeline, max_len);
  int64_t train_tokens = 0;
  for (const auto& ids : corpus.train.ids) train_tokens += static_cast<int64_t>(ids.size());
  std::printf("text: %s tokenizer%s, vocabulary of %lld tokens, %lld training tokens (%.1f s)\n",
              pipeline.kind().c_str(), resume ? " (from the checkpoint)" : "",
              static_cast<long long>(pipeline.vocab().size()), static_cast<long long>(train_tokens),
              seconds_since(t_tok));

  ModelSpec spec{.model = model_name,
                 .vocab_size = pipeline.vocab().size(),
                 .num_classes = static_cast<int64_t>(corpus.classes.size()),
                 .embed_dim = c.embed_dim,
                 .nhead = c.nhead,
                 .layers = c.layers,
                 .dim_feedforward = c.dim_feedforward,
                 .dropout = c.dropout,
                 .pad_index = pipeline.vocab().contains(kPad) ? pipeline.vocab().lookup_index(kPad) : -1,
                 .max_len = c.max_len};
  if (resume) {
    EMBER_CHECK(resume->spec.model == model_name, "ember-text: checkpoint '", c.resume, "' holds a ",
                resume->spec.model, " model, not ", model_name);
    EMBER_CHECK(resume->state.classes == corpus.classes, "ember-text: checkpoint '", c.resume,
                "' was trained on other classes than the corpus's");
    spec = resume->spec;
  }
  TextModel model = create_model(spec);
  int64_t num_params = 0;
  for (const Tensor& p : model.module().parameters()) num_params += p.numel();

  // torchtext's tutorial: SGD lr 5, gradients clipped to 0.1, lr x0.1 when
  // the validation accuracy drops. The transformer: AdamW lr 5e-4, clip 1.
  const bool embbag = model_name == "embbag";
  const double lr = c.lr > 0 ? c.lr : (embbag ? 5.0 : 5e-4);
  const double clip = c.clip >= 0 ? c.clip : (embbag ? 0.1 : 1.0);
  auto optimizer = make_optimizer(embbag ? "sgd" : "adamw", lr, model.module().parameters());
  optim::StepLR scheduler(*optimizer, 1, 0.1);
  RunState state;
  state.task = "classify";
  state.classes = corpus.classes;
  state.seed = static_cast<uint64_t>(c.seed);
  if (resume) {
    model.module().load_state_dict(resume->model_state, /*strict=*/true);
    restore_training_state(*resume, *optimizer, &scheduler);
    state.epochs_done = resume->state.epochs_done;
    state.best_val = resume->state.best_val;
    state.last_val = resume->state.last_val;
    state.history = resume->state.history;
    std::printf("resume: %s after epoch %lld (validation accuracy %.2f%%)\n", c.resume.c_str(),
                static_cast<long long>(state.epochs_done), 100 * state.last_val);
  }
  std::printf("model: %s, %.3f M parameters; %s lr %g, clip %g, batch %lld, %lld epochs\n", model_name.c_str(),
              static_cast<double>(num_params) / 1e6, embbag ? "sgd" : "adamw", lr, clip,
              static_cast<long long>(batch_size), static_cast<long long>(epochs));

  std::vector<int64_t> lengths;
  for (const auto& ids : corpus.train.ids) lengths.push_back(static_cast<int64_t>(ids.size()));
  text::BucketBatchSampler sampler(lengths, {.batch_size = batch_size, .seed = static_cast<uint64_t>(c.seed)});
  const std::string last_path = last_checkpoint_path(c), best_path = best_checkpoint_path(c);
  const std::string metrics_path = (fs::path(c.output) / "metrics.json").string();
  MetricsSummary summary;
  summary.task = "classify";
  summary.model = model_name;
  summary.tokenizer = pipeline.kind();
  summary.metric = "accuracy";
  summary.vocab_size = pipeline.vocab().size();
  summary.classes = corpus.classes;
  summary.checkpoint = last_path;
  summary.epochs = state.history;
  TextResult result;
  int64_t run_epochs = 0;
  for (int64_t epoch = state.epochs_done; epoch < epochs; ++epoch) {
    if (c.stop_after > 0 && run_epochs == c.stop_after) break;
    model.module().train();
    sampler.set_epoch(epoch);
    const auto batches = sampler.batches();
    const auto te = Clock::now();
    double loss_sum = 0;
    int64_t correct = 0, seen = 0, tokens = 0;
    ProgressBar bar({.total = static_cast<int64_t>(batches.size()),
                     .desc = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(epochs),
                     .plain = c.progress ? std::nullopt : std::optional<bool>(true), .unit = "batch"});
    for (const auto& indices : batches) {
      std::vector<const std::vector<int64_t>*> texts;
      std::vector<int64_t> labels;
      for (int64_t i : indices) {
        texts.push_back(&corpus.train.ids[static_cast<size_t>(i)]);
        labels.push_back(corpus.train.labels[static_cast<size_t>(i)]);
        tokens += static_cast<int64_t>(corpus.train.ids[static_cast<size_t>(i)].size());
      }
      const Tensor target = tensor(labels, kInt64);
      optimizer->zero_grad();
      const Tensor logits = classifier_logits(model, make_classifier_batch(spec, texts));
      const Tensor loss = F::cross_entropy(logits, target);
      loss.backward();
      nn::utils::clip_grad_norm_(model.module().parameters(), clip);
      optimizer->step();
      const auto n = static_cast<int64_t>(labels.size());
      loss_sum += loss.item<double>() * static_cast<double>(n);
      correct += logits.argmax(1).eq(target).sum().item<int64_t>();
      seen += n;
      bar.set_postfix({{"loss", loss_sum / static_cast<double>(seen)},
                       {"acc", static_cast<double>(correct) / static_cast<double>(seen)},
                       {"tok/s", static_cast<double>(tokens) / seconds_since(te)}});
      bar.update();
    }
    bar.close();
    const double seconds = seconds_since(te);
    const Evaluation val = evaluate(model, corpus.val, 2 * batch_size);
    EpochRecord rec{.epoch = epoch + 1,
                    .train_loss = loss_sum / static_cast<double>(seen),
                    .val_metric = val.accuracy,
                    .val_loss = val.loss,
                    .lr = optimizer->param_groups()[0].options.at("lr").to_double(),
                    .seconds = seconds,
                    .tokens_per_s = static_cast<double>(tokens) / seconds};
    // The tutorial's schedule: a drop in validation accuracy divides the lr by 10.
    if (state.epochs_done > 0 && val.accuracy < state.last_val) scheduler.step();
    state.epochs_done = epoch + 1;
    state.last_val = val.accuracy;
    const bool best = state.epochs_done == 1 || val.accuracy > state.best_val;
    if (best) state.best_val = val.accuracy;
    state.history.push_back(rec);
    save_text_checkpoint(last_path, model, pipeline, optimizer.get(), &scheduler, state);
    if (best) fs::copy_file(last_path, best_path, fs::copy_options::overwrite_existing);
    std::printf("epoch %lld/%lld: train loss %.4f, train acc %.2f%%, val loss %.4f, val acc %.2f%%%s, lr %g, "
                "%.0f tokens/s, %.1f s\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(epochs), rec.train_loss,
                100.0 * static_cast<double>(correct) / static_cast<double>(seen), val.loss, 100 * val.accuracy,
                best ? " (best)" : "", rec.lr, rec.tokens_per_s, seconds);
    std::fflush(stdout);
    summary.epochs = state.history;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    result.final_train_loss = rec.train_loss;
    result.val_metric = val.accuracy;
    ++run_epochs;
  }
  result.epochs_done = state.epochs_done;
  result.checkpoint = last_path;
  if (run_epochs == 0) result.val_metric = evaluate(model, corpus.val, 2 * batch_size).accuracy;
  if (state.epochs_done == epochs) {
    const Evaluation test = evaluate(model, corpus.test, 2 * batch_size);
    result.test_metric = test.accuracy;
    result.test_loss = test.loss;
    summary.test_metric = test.accuracy;
    summary.test_loss = test.loss;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    std::printf("test: loss %.4f, accuracy %.2f%% on %zu rows\n", test.loss, 100 * test.accuracy,
                corpus.test.texts.size());
  }
  std::printf("done: %lld/%lld epochs, validation accuracy %.2f%% (best %.2f%%) in %.1f s\n",
              static_cast<long long>(state.epochs_done), static_cast<long long>(epochs), 100 * result.val_metric,
              100 * state.best_val, seconds_since(t_start));
  std::printf("files: %s (last), %s (best), %s\n", last_path.c_str(), best_path.c_str(), metrics_path.c_str());
  return result;
}

}  // namespace ember::apps::text_app
