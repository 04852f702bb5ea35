#include "lm_task.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

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

namespace ember::apps::text_app {
namespace {

namespace fs = std::filesystem;
namespace F = nn::functional;

constexpr int64_t kEvalBatch = 10;  // the tutorial's eval_batch_size

std::string prepare_root(const TextConfig& c) {
  if (!c.from_text.empty()) {
    const std::string root = (fs::path(c.output) / "data").string();
    if (!fs::exists(fs::path(root) / "wikitext-2" / "wiki.train.tokens")) {
      const int64_t lines = write_wikitext_from_text(c.from_text, root, c.from_text_lines);
      std::printf("data: split %lld lines of %s into %s/wikitext-2/wiki.{train,valid,test}.tokens (80/10/10%%)\n",
                  static_cast<long long>(lines), c.from_text.c_str(), root.c_str());
    } else {
      std::printf("data: reusing %s/wikitext-2 (written by an earlier run; delete it to split --from-text again)\n",
                  root.c_str());
    }
    return root;
  }
  EMBER_CHECK(!c.data.empty(), "ember-text: --task lm needs --data DIR (a WikiText layout) or --from-text FILE");
  return c.data;
}

// The lines of a split, without their line ends.
std::vector<std::string> read_lines(const std::string& root, const std::string& format, const std::string& split) {
  std::unique_ptr<text::LineFileDataset> dataset;
  if (format == "wikitext2") dataset = std::make_unique<text::WikiText2>(root, split);
  else if (format == "wikitext103") dataset = std::make_unique<text::WikiText103>(root, split);
  else if (format == "ptb") dataset = std::make_unique<text::PennTreebank>(root, split);
  else EMBER_FAIL("ember-text: unknown --format '", format, "' for --task lm (expected wikitext2, wikitext103 or ptb)");
  std::vector<std::string> lines;
  auto it = dataset->iter(datasets::WorkerInfo{});
  while (auto line = it->next()) {
    while (!line->empty() && (line->back() == '\n' || line->back() == '\r')) line->pop_back();
    lines.push_back(std::move(*line));
  }
  return lines;
}

// The tutorial's data_process, with <eos> after each line (the
// word_language_model example's): lines without tokens are skipped.
Tensor stream(const TextPipeline& pipeline, const std::vector<std::string>& lines) {
  const int64_t eos = pipeline.vocab().lookup_index(kEos);
  std::vector<int64_t> all;
  for (const auto& ids : pipeline.ids(lines)) {
    if (ids.empty()) continue;
    all.insert(all.end(), ids.begin(), ids.end());
    all.push_back(eos);
  }
  return tensor(all, kInt64);
}

struct Evaluation {
  double loss = 0, perplexity = 0;
};

Evaluation evaluate(const TextModel& model, const Tensor& source, int64_t bptt) {
  model.module().eval();
  NoGradGuard no_grad;
  double total = 0;
  const int64_t T = source.size(0);
  for (int64_t i = 0; i < T - 1; i += bptt) {
    const auto [data, target] = text::get_batch(source, i, bptt);
    const Tensor logits = model.lm->forward(data);
    total += static_cast<double>(data.size(0)) *
             F::cross_entropy(logits.reshape({-1, model.spec.vocab_size}), target).item<double>();
  }
  const double loss = total / static_cast<double>(T - 1);
  return {loss, std::exp(loss)};
}

Tensor checked_batchify(const Tensor& ids, int64_t batch, const std::string& split) {
  EMBER_CHECK(ids.numel() >= 2 * batch, "ember-text: the ", split, " split has ", ids.numel(),
              " tokens, too few for ", batch, " columns of at least 2");
  return text::batchify(ids, batch);
}

}  // namespace

TextResult train_language_model(const TextConfig& c) {
  const auto t_start = Clock::now();
  RunScope scope(c);
  EMBER_CHECK(c.model.empty() || c.model == "transformer", "ember-text: unknown --model '", c.model,
              "' for --task lm (expected transformer)");
  EMBER_CHECK(c.tokenizer == "basic_english" || c.tokenizer == "sentencepiece", "ember-text: unknown --tokenizer '",
              c.tokenizer, "' (expected basic_english or sentencepiece)");
  EMBER_CHECK(c.bptt >= 1, "ember-text: --bptt must be >= 1 (got ", c.bptt, ")");
  fs::create_directories(c.output);
  std::optional<TextCheckpoint> resume = load_resume(c, "lm");
  const int64_t epochs = c.epochs > 0 ? c.epochs : 3;
  const int64_t batch_size = c.batch_size > 0 ? c.batch_size : 20;
  const std::string format = c.format.empty() ? "wikitext2" : c.format;

  const std::string root = prepare_root(c);
  const auto train_lines = read_lines(root, format, "train");
  const auto valid_lines = read_lines(root, format, "valid");
  const auto test_lines = read_lines(root, format, "test");
  const auto t_tok = Clock::now();
  TextPipeline pipeline = resume ? resume->pipeline
                                 : build_pipeline(train_lines, {.tokenizer = c.tokenizer,
                                                                .sp_vocab_size = c.sp_vocab_size,
                                                                .sp_model_type = c.sp_model_type,
                                                                .min_freq = c.min_freq,
                                                                .specials = {kUnk, kEos}});
  const Tensor train_data = checked_batchify(stream(pipeline, train_lines), batch_size, "train");
  const Tensor val_data = checked_batchify(stream(pipeline, valid_lines), kEvalBatch, "valid");
  const Tensor test_data = checked_batchify(stream(pipeline, test_lines), kEvalBatch, "test");
  std::printf("data: %s in %s: %zu/%zu/%zu lines; %s tokenizer%s, vocabulary of %lld tokens; %lld training tokens "
              "as [%lld, %lld] (%.1f s)\n",
              format.c_str(), root.c_str(), train_lines.size(), valid_lines.size(), test_lines.size(),
              pipeline.kind().c_str(), resume ? " (from the checkpoint)" : "",
              static_cast<long long>(pipeline.vocab().size()), static_cast<long long>(train_data.numel()),
              static_cast<long long>(train_data.size(0)), static_cast<long long>(batch_size), seconds_since(t_tok));

  ModelSpec spec{.model = "transformer_lm",
                 .vocab_size = pipeline.vocab().size(),
                 .embed_dim = c.embed_dim,
                 .nhead = c.nhead,
                 .layers = c.layers,
                 .dim_feedforward = c.dim_feedforward,
                 .dropout = c.dropout};
  if (resume) spec = resume->spec;
  TextModel model = create_model(spec);
  spec = model.spec;
  int64_t num_params = 0;
  for (const Tensor& p : model.module().parameters()) num_params += p.numel();
  const double lr = c.lr > 0 ? c.lr : 5.0;
  const double clip = c.clip >= 0 ? c.clip : 0.5;
  auto optimizer = make_optimizer("sgd", lr, model.module().parameters());
  optim::StepLR scheduler(*optimizer, 1, 0.95);
  RunState state;
  state.task = "lm";
  state.seed = static_cast<uint64_t>(c.seed);
  if (resume) {
    model.module().load_state_dict(resume->model_state, /*strict=*/true);
    restore_training_state(*resume, *optimizer, &scheduler);
    state.epochs_done = resume->state.epochs_done;
    state.best_val = resume->state.best_val;
    state.last_val = resume->state.last_val;
    state.history = resume->state.history;
    std::printf("resume: %s after epoch %lld (validation perplexity %.2f)\n", c.resume.c_str(),
                static_cast<long long>(state.epochs_done), state.last_val);
  }
  std::printf("model: transformer LM, d_model %lld, %lld layers, %lld heads, %.2f M parameters; sgd lr %g, clip %g, "
              "batch %lld x bptt %lld, %lld epochs\n",
              static_cast<long long>(spec.embed_dim), static_cast<long long>(spec.layers),
              static_cast<long long>(spec.nhead), static_cast<double>(num_params) / 1e6, lr, clip,
              static_cast<long long>(batch_size), static_cast<long long>(c.bptt), static_cast<long long>(epochs));

  const std::string last_path = last_checkpoint_path(c), best_path = best_checkpoint_path(c);
  const std::string metrics_path = (fs::path(c.output) / "metrics.json").string();
  MetricsSummary summary;
  summary.task = "lm";
  summary.model = "transformer";
  summary.tokenizer = pipeline.kind();
  summary.metric = "perplexity";
  summary.vocab_size = pipeline.vocab().size();
  summary.checkpoint = last_path;
  summary.epochs = state.history;
  TextResult result;
  const int64_t T = train_data.size(0);
  const int64_t steps = (T - 1 + c.bptt - 1) / c.bptt;
  int64_t run_epochs = 0;
  for (int64_t epoch = state.epochs_done; epoch < epochs; ++epoch) {
    if (c.stop_after > 0 && run_epochs == c.stop_after) break;
    model.module().train();
    const auto te = Clock::now();
    double loss_sum = 0;
    int64_t tokens = 0;
    ProgressBar bar({.total = steps,
                     .desc = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(epochs),
                     .plain = c.progress ? std::nullopt : std::optional<bool>(true), .unit = "batch"});
    for (int64_t i = 0; i < T - 1; i += c.bptt) {
      const auto [data, target] = text::get_batch(train_data, i, c.bptt);
      optimizer->zero_grad();
      const Tensor logits = model.lm->forward(data);
      const Tensor loss = F::cross_entropy(logits.reshape({-1, spec.vocab_size}), target);
      loss.backward();
      nn::utils::clip_grad_norm_(model.module().parameters(), clip);
      optimizer->step();
      loss_sum += loss.item<double>() * static_cast<double>(target.numel());
      tokens += target.numel();
      const double mean = loss_sum / static_cast<double>(tokens);
      bar.set_postfix({{"loss", mean}, {"ppl", std::exp(mean)}, {"tok/s", static_cast<double>(tokens) / seconds_since(te)}});
      bar.update();
    }
    bar.close();
    const double seconds = seconds_since(te);
    const double lr_now = optimizer->param_groups()[0].options.at("lr").to_double();
    scheduler.step();
    const Evaluation val = evaluate(model, val_data, c.bptt);
    EpochRecord rec{.epoch = epoch + 1,
                    .train_loss = loss_sum / static_cast<double>(tokens),
                    .val_metric = val.perplexity,
                    .val_loss = val.loss,
                    .lr = lr_now,
                    .seconds = seconds,
                    .tokens_per_s = static_cast<double>(tokens) / seconds};
    state.epochs_done = epoch + 1;
    state.last_val = val.perplexity;
    const bool best = state.epochs_done == 1 || val.perplexity < state.best_val;
    if (best) state.best_val = val.perplexity;
    state.history.push_back(rec);
    save_text_checkpoint(last_path, model, pipeline, optimizer.get(), &scheduler, state);
    if (best) fs::copy_file(last_path, best_path, fs::copy_options::overwrite_existing);
    std::printf("epoch %lld/%lld: train loss %.4f (ppl %.2f), valid loss %.4f, valid ppl %.2f%s, lr %g, "
                "%.0f tokens/s, %.1f s\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(epochs), rec.train_loss,
                std::exp(rec.train_loss), val.loss, val.perplexity, best ? " (best)" : "", lr_now, rec.tokens_per_s,
                seconds);
    std::fflush(stdout);
    summary.epochs = state.history;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    result.final_train_loss = rec.train_loss;
    result.val_metric = val.perplexity;
    ++run_epochs;
  }
  result.epochs_done = state.epochs_done;
  result.checkpoint = last_path;
  if (run_epochs == 0) result.val_metric = evaluate(model, val_data, c.bptt).perplexity;
  if (state.epochs_done == epochs) {
    const Evaluation test = evaluate(model, test_data, c.bptt);
    result.test_metric = test.perplexity;
    result.test_loss = test.loss;
    summary.test_metric = test.perplexity;
    summary.test_loss = test.loss;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    std::printf("test: loss %.4f, perplexity %.2f on %lld tokens\n", test.loss, test.perplexity,
                static_cast<long long>(test_data.numel()));
  }
  std::printf("done: %lld/%lld epochs, validation perplexity %.2f (best %.2f) in %.1f s\n",
              static_cast<long long>(state.epochs_done), static_cast<long long>(epochs), result.val_metric,
              state.best_val, seconds_since(t_start));
  std::printf("files: %s (last), %s (best), %s\n", last_path.c_str(), best_path.c_str(), metrics_path.c_str());
  return result;
}

double line_perplexity(const TextModel& model, const TextPipeline& pipeline, const std::string& line) {
  const int64_t eos = pipeline.vocab().lookup_index(kEos);
  std::vector<int64_t> seq{eos};
  for (int64_t id : pipeline.ids(line)) seq.push_back(id);
  seq.push_back(eos);
  const int64_t n = static_cast<int64_t>(seq.size()) - 1;
  EMBER_CHECK(n <= model.spec.max_len, "ember-text: a line of ", n, " tokens is longer than the model's ",
              model.spec.max_len, " positions");
  const Tensor ids = tensor(seq, kInt64);
  const Tensor input = ids.slice(0, 0, n).reshape({n, 1});
  const Tensor target = ids.slice(0, 1, n + 1);
  model.module().eval();
  NoGradGuard no_grad;
  const Tensor logits = model.lm->forward(input);
  return std::exp(F::cross_entropy(logits.reshape({-1, model.spec.vocab_size}), target).item<double>());
}

}  // namespace ember::apps::text_app
