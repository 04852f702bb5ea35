#include "trainer.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include <ember/autograd/grad_mode.h>
#include <ember/core/determinism.h>
#include <ember/core/parallel.h>
#include <ember/datasets/data_loader.h>
#include <ember/datasets/distributed_sampler.h>
#include <ember/datasets/subset.h>
#include <ember/datasets/progress.h>
#include <ember/models/classifier.h>
#include <ember/nn/functional/loss.h>
#include <ember/optim/adam.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/optim/sgd.h>
#include <ember/serialize/json.h>

#include "common/checkpoint.h"
#include "common/distributed_run.h"
#include "common/quantized_checkpoint.h"
#include "common/shapes_data.h"
#include "quantize_stage.h"
#include "training_data.h"

namespace ember::apps {
namespace {

namespace fs = std::filesystem;
namespace F = nn::functional;
using Clock = std::chrono::steady_clock;

constexpr int64_t kShapesImageSize = 32;

// printf on rank 0 only (every line when not launched by ember-run).
__attribute__((format(printf, 2, 3))) void say(const DistributedRun& run, const char* format, ...) {
  if (!run.is_main()) return;
  va_list args;
  va_start(args, format);
  std::vprintf(format, args);
  va_end(args);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The dataset root: the given one, or the shapes dataset generated (once)
// under the output folder.
std::string prepare_data(const TrainConfig& config, const DistributedRun& run) {
  if (!config.data.empty()) return config.data;
  const std::string root = (fs::path(config.output) / "data").string();
  if (run.is_main() && !fs::exists(fs::path(root) / "train")) {
    const auto t0 = Clock::now();
    const int64_t files = write_shapes_dataset(
        root, {.train_per_class = config.shapes_per_class, .image_size = kShapesImageSize,
               .seed = static_cast<uint64_t>(config.seed)});
    std::printf("data: generated %lld images of %zu shapes (JPEG and PNG, ImageFolder layout) in %s in %.1f s\n",
                static_cast<long long>(files), shape_classes().size(), root.c_str(), seconds_since(t0));
  }
  run.barrier();  // the other ranks read what rank 0 wrote
  return root;
}

std::unique_ptr<optim::Optimizer> make_optimizer(const TrainConfig& c, std::vector<Tensor> params) {
  if (c.optimizer == "sgd")
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions{.lr = c.lr, .momentum = 0.9,
                                                                               .weight_decay = c.weight_decay,
                                                                               .nesterov = true});
  if (c.optimizer == "adamw")
    return std::make_unique<optim::AdamW>(std::move(params),
                                          optim::AdamWOptions{.lr = c.lr, .weight_decay = c.weight_decay});
  EMBER_FAIL("unknown optimizer '", c.optimizer, "' (expected sgd or adamw)");
}

// Schedules step once per batch.
std::unique_ptr<optim::LRScheduler> make_scheduler(const TrainConfig& c, optim::Optimizer& opt, int64_t steps) {
  const int64_t total = c.epochs * steps;
  if (c.scheduler == "onecycle")
    return std::make_unique<optim::OneCycleLR>(
        opt, optim::OneCycleLROptions{.max_lr = {c.lr}, .epochs = c.epochs, .steps_per_epoch = steps});
  if (c.scheduler == "cosine") return std::make_unique<optim::CosineAnnealingLR>(opt, total);
  if (c.scheduler == "step") return std::make_unique<optim::StepLR>(opt, std::max<int64_t>(1, total / 3), 0.1);
  if (c.scheduler == "none") return nullptr;
  EMBER_FAIL("unknown scheduler '", c.scheduler, "' (expected onecycle, cosine, step or none)");
}

struct EpochStats {
  double loss = 0, accuracy = 0, images_per_s = 0, seconds = 0;
};

// Validation accuracy; each rank counts its share (every index once over the
// ranks, no padding) and the counts are summed.
// A batch of images as the model takes it: its dtype and memory format.
Tensor model_input(const Tensor& images, const TrainConfig& c) {
  const Tensor x = c.float64 ? images.to(kFloat64) : images;
  return c.channels_last ? x.contiguous(MemoryFormat::ChannelsLast) : x;
}

template <class Loader>
double evaluate(models::ImageClassifierImpl& model, Loader& loader, const TrainConfig& c, const DistributedRun& run) {
  model.eval();
  NoGradGuard no_grad;
  int64_t correct = 0, total = 0;
  for (auto& [images, labels] : loader) {
    correct += model.forward(model_input(images, c)).argmax(1).eq(labels).sum().template item<int64_t>();
    total += labels.size(0);
  }
  const std::vector<double> sums = run.sum({static_cast<double>(correct), static_cast<double>(total)});
  return sums[1] == 0 ? 0.0 : sums[0] / sums[1];
}

struct EpochRecord {
  int64_t epoch;
  EpochStats train;
  double val_accuracy;
  double lr;
};

void write_metrics(const std::string& path, const TrainConfig& c, const std::vector<std::string>& classes,
                   const std::vector<EpochRecord>& epochs, double final_accuracy, double best,
                   const std::string& checkpoint, double total_s, const QuantizeReport* quantization = nullptr) {
  namespace json = serialize::json;
  std::string s = "{\n  \"model\": " + json::quote(c.model) + ",\n  \"classes\": [";
  for (size_t i = 0; i < classes.size(); ++i) s += (i ? ", " : "") + json::quote(classes[i]);
  s += "],\n  \"epochs\": [\n";
  for (size_t i = 0; i < epochs.size(); ++i) {
    const EpochRecord& e = epochs[i];
    char line[320];
    std::snprintf(line, sizeof(line),
                  "    {\"epoch\": %lld, \"train_loss\": %.6f, \"train_accuracy\": %.6f, \"val_accuracy\": %.6f, "
                  "\"lr\": %.6g, \"images_per_s\": %.1f, \"seconds\": %.2f}%s\n",
                  static_cast<long long>(e.epoch), e.train.loss, e.train.accuracy, e.val_accuracy, e.lr,
                  e.train.images_per_s, e.train.seconds, i + 1 < epochs.size() ? "," : "");
    s += line;
  }
  char tail[256];
  std::snprintf(tail, sizeof(tail), "  ],\n  \"final_val_accuracy\": %.6f,\n  \"best_val_accuracy\": %.6f,\n",
                final_accuracy, best);
  s += tail;
  std::snprintf(tail, sizeof(tail), "  \"total_seconds\": %.2f,\n", total_s);
  s += tail;
  s += "  \"checkpoint\": " + json::quote(checkpoint);
  if (quantization != nullptr) s += ",\n  \"quantization\": " + quantize_report_json(*quantization, "  ");
  s += "\n}\n";
  std::ofstream f(path);
  f << s;
  EMBER_CHECK(f.good(), "cannot write '", path, "'");
}

}  // namespace

TrainResult train(const TrainConfig& c) {
  const auto t_start = Clock::now();
  EMBER_CHECK(c.epochs >= 1 && c.batch_size >= 2, "--epochs must be >= 1 and --batch-size >= 2");
  // Under ember-run: one rank of a data-parallel run (docs/apps.md, "Data-parallel ember-train").
  DistributedRun run = DistributedRun::from_environment();
  const int64_t world = run.world_size();
  EMBER_CHECK(c.batch_size % world == 0, "--batch-size ", c.batch_size, " (the global batch) must divide by the ",
              world, " ranks");
  const int64_t rank_batch = c.batch_size / world;
  check_quantize_config(c);
  EMBER_CHECK(c.quantize.empty() || !run.launched(), "--quantize runs in one process, not under ember-run");
  if (c.threads > 0) set_num_threads(static_cast<int>(c.threads));
  // Restored when the run ends (a program may train more than once).
  struct DeterministicScope {
    bool saved = are_deterministic_algorithms_enabled();
    explicit DeterministicScope(bool on) {
      if (on) use_deterministic_algorithms(true);
    }
    ~DeterministicScope() { use_deterministic_algorithms(saved); }
  } deterministic_scope(c.deterministic);
  manual_seed(static_cast<uint64_t>(c.seed));
  if (run.is_main()) fs::create_directories(c.output);

  const std::string format = c.data.empty() ? "imagefolder" : c.format;
  // Generated shapes are drawn at 32 px; a user's ImageFolder gets ImageNet's 224.
  const int64_t natural = c.data.empty() ? kShapesImageSize : natural_image_size(format);
  const int64_t image_size = c.image_size > 0 ? c.image_size : natural > 0 ? natural : 224;
  const auto train_t = make_train_transform(format, image_size);
  const auto eval_t = make_eval_transform(format, image_size);
  const TrainingData data = load_training_data(
      {.root = prepare_data(c, run), .format = format, .val_fraction = c.val_fraction, .seed = static_cast<uint64_t>(c.seed)},
      train_t, eval_t);
  say(run, "data: %s; %zu classes; %lldx%lld inputs\n", data.description.c_str(), data.classes.size(),
      static_cast<long long>(image_size), static_cast<long long>(image_size));

  const int64_t num_classes = static_cast<int64_t>(data.classes.size());
  models::ImageClassifier model = models::create(c.model, {.num_classes = num_classes});
  if (c.float64) model->to(kFloat64);
  if (c.channels_last) model->to(MemoryFormat::ChannelsLast);
  int64_t num_params = 0;
  for (const Tensor& p : model->parameters()) num_params += p.numel();
  run.wrap(model);

  // One process: the loader shuffles. Under ember-run: a DistributedSampler
  // (the same permutation on every rank, rank r reading positions r, r + N,
  // ...), so global batch k is positions [k B, (k + 1) B) of the permutation
  // whatever the world size; the images are augmented per sample index.
  datasets::DataLoaderOptions train_options{.batch_size = c.batch_size, .shuffle = true, .num_workers = c.workers,
                                            .drop_last = true, .seed = static_cast<uint64_t>(c.seed)};
  datasets::DataLoaderOptions val_options{.batch_size = 2 * c.batch_size, .num_workers = c.workers,
                                          .seed = static_cast<uint64_t>(c.seed)};
  SampleDataset train_set = data.train, val_set = data.val;
  std::shared_ptr<IndexSeededDataset> seeded_train;
  std::shared_ptr<datasets::DistributedSampler> sampler;
  if (run.launched()) {
    seeded_train = std::make_shared<IndexSeededDataset>(data.train, static_cast<uint64_t>(c.seed));
    train_set = seeded_train;
    sampler = std::make_shared<datasets::DistributedSampler>(
        data.train->size(), datasets::DistributedSamplerOptions{.num_replicas = world, .rank = run.rank(),
                                                                .seed = static_cast<uint64_t>(c.seed)});
    train_options.batch_size = rank_batch;
    train_options.shuffle = false;
    train_options.sampler = sampler;
    train_options.seed = static_cast<uint64_t>(c.seed) + static_cast<uint64_t>(run.rank());  // per-rank streams
    // Validation: rank r counts indices r, r + N, ... (each image once; no padding).
    std::vector<int64_t> mine;
    for (int64_t i = run.rank(); i < data.val->size(); i += world) mine.push_back(i);
    val_set = std::make_shared<datasets::Subset<Sample>>(data.val, std::move(mine));
    val_options.batch_size = 2 * rank_batch;
  }
  datasets::DataLoader train_loader(train_set, train_options);
  datasets::DataLoader val_loader(val_set, val_options);
  const int64_t steps = train_loader.size();
  EMBER_CHECK(steps >= 1, "the training set (", data.train->size(), " images) is smaller than one batch of ",
              c.batch_size);
  auto optimizer = make_optimizer(c, model->parameters());
  auto scheduler = make_scheduler(c, *optimizer, steps);

  CheckpointInfo info{.model = c.model, .num_classes = num_classes, .classes = data.classes, .image_size = image_size,
                      .seed = static_cast<uint64_t>(c.seed)};
  std::string resume = c.resume;
  const std::string last_path = (fs::path(c.output) / "checkpoint.safetensors").string();
  // A group ember-run restarted after a failure goes on from the last checkpoint (torchrun's recipe).
  if (resume.empty() && run.restart_count() > 0 && fs::exists(last_path)) resume = last_path;
  if (!resume.empty()) {
    const Checkpoint ckpt = load_checkpoint(resume);
    EMBER_CHECK(!is_quantized(ckpt), "checkpoint '", resume,
                "' holds a quantized (int8) model; --resume needs a float checkpoint (checkpoint.safetensors)");
    EMBER_CHECK(ckpt.info.model == c.model && ckpt.info.num_classes == num_classes &&
                    ckpt.info.image_size == image_size,
                "checkpoint '", resume, "' is for ", ckpt.info.model, " with ", ckpt.info.num_classes, " classes at ",
                ckpt.info.image_size, " px, but this run trains ", c.model, " with ", num_classes, " classes at ",
                image_size, " px");
    EMBER_CHECK(ckpt.info.classes == data.classes, "checkpoint '", resume,
                "' was trained on other class names than the data's");
    model->load_state_dict(ckpt.model_state, /*strict=*/true);
    restore_training_state(ckpt, *optimizer, scheduler.get());
    info.epochs_done = ckpt.info.epochs_done;
    info.best_accuracy = ckpt.info.best_accuracy;
    say(run, "resume: %s after epoch %lld (best validation accuracy %.2f%%)\n", resume.c_str(),
                static_cast<long long>(info.epochs_done), 100 * info.best_accuracy);
  }
  say(run, "model: %s, %.2f M parameters%s%s; %s lr %g, %s schedule, batch %lld, %lld workers\n", c.model.c_str(),
      static_cast<double>(num_params) / 1e6, c.channels_last ? ", channels-last" : "", c.float64 ? ", float64" : "",
      c.optimizer.c_str(), c.lr,
      c.scheduler.c_str(), static_cast<long long>(c.batch_size), static_cast<long long>(c.workers));
  if (run.launched())
    say(run, "distributed: %lld ranks (Gloo), %lld images per rank and step, DistributedDataParallel%s\n",
        static_cast<long long>(world), static_cast<long long>(rank_batch), world > 1 ? ", SyncBatchNorm" : "");
  const std::string best_path = (fs::path(c.output) / "best.safetensors").string();
  const std::string metrics_path = (fs::path(c.output) / "metrics.json").string();
  std::vector<EpochRecord> records;
  TrainResult result;
  result.best_accuracy = info.best_accuracy;
  result.epochs_done = info.epochs_done;
  int64_t run_epochs = 0;
  for (int64_t epoch = info.epochs_done; epoch < c.epochs; ++epoch) {
    if (c.stop_after > 0 && run_epochs == c.stop_after) break;
    model->train();
    train_loader.set_epoch(epoch);
    if (sampler) sampler->set_epoch(epoch);
    if (seeded_train) seeded_train->set_epoch(epoch);
    const auto te = Clock::now();
    double loss_sum = 0;
    int64_t correct = 0, seen = 0;
    std::optional<ProgressBar> bar;  // rank 0's, showing its own share
    if (run.is_main())
      bar.emplace(ProgressBarOptions{.total = steps,
                                     .desc = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(c.epochs),
                                     .plain = c.progress ? std::nullopt : std::optional<bool>(true), .unit = "batch"});
    for (auto& [images, labels] : train_loader) {
      const Tensor x = model_input(images, c);
      optimizer->zero_grad();
      Tensor logits;
      const Tensor loss = run.forward([&] {
        logits = model->forward(x);
        return F::cross_entropy(logits, labels, {.label_smoothing = c.label_smoothing});
      });
      loss.backward();  // under DDP: returns with the gradients averaged over the ranks
      optimizer->step();
      run.maybe_inject_fault(epoch + 1);
      if (scheduler) scheduler->step();
      loss_sum += loss.item<double>() * static_cast<double>(labels.size(0));
      correct += logits.argmax(1).eq(labels).sum().item<int64_t>();
      seen += labels.size(0);
      if (bar) bar->set_postfix({{"loss", loss_sum / static_cast<double>(seen)},
                       {"acc", static_cast<double>(correct) / static_cast<double>(seen)},
                       {"img/s", static_cast<double>(seen) / seconds_since(te)}});
      if (bar) bar->update();
    }
    if (bar) bar->close();
    // The epoch's counts over all ranks.
    const std::vector<double> totals =
        run.sum({loss_sum, static_cast<double>(correct), static_cast<double>(seen)});
    EpochRecord rec{.epoch = epoch + 1,
                    .train = {.loss = totals[0] / totals[2],
                              .accuracy = totals[1] / totals[2],
                              .images_per_s = totals[2] / seconds_since(te),
                              .seconds = seconds_since(te)},
                    .val_accuracy = evaluate(*model, val_loader, c, run),
                    .lr = optimizer->param_groups()[0].options.at("lr").to_double()};
    records.push_back(rec);
    info.epochs_done = epoch + 1;
    const bool best = rec.val_accuracy > info.best_accuracy || info.epochs_done == 1;
    if (best) info.best_accuracy = rec.val_accuracy;
    if (run.is_main()) {
      save_checkpoint(last_path, *model, optimizer.get(), scheduler.get(), *eval_t, info);
      if (best) fs::copy_file(last_path, best_path, fs::copy_options::overwrite_existing);
    }
    say(run, "epoch %lld/%lld: train loss %.4f, train acc %.2f%%, val acc %.2f%%%s, %.0f img/s, %.1f s\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(c.epochs), rec.train.loss,
                100 * rec.train.accuracy, 100 * rec.val_accuracy, best ? " (best)" : "", rec.train.images_per_s,
                rec.train.seconds);
    std::fflush(stdout);
    ++run_epochs;
    result.final_accuracy = rec.val_accuracy;
    result.last_epoch_steps = steps;
    result.last_epoch_images = static_cast<int64_t>(totals[2]);
    result.val_images = static_cast<int64_t>(data.val->size());
    if (run.is_main())
      write_metrics(metrics_path, c, data.classes, records, rec.val_accuracy, info.best_accuracy, last_path,
                    seconds_since(t_start));
    // Nobody starts the next epoch before the checkpoint is complete: a rank
    // failing there restarts the group from this epoch's checkpoint.
    run.barrier();
  }
  result.best_accuracy = info.best_accuracy;
  result.epochs_done = info.epochs_done;
  result.checkpoint = last_path;
  if (records.empty()) result.final_accuracy = evaluate(*model, val_loader, c, run);
  // Quantization needs the finished float model (a run stopped early is resumed first).
  if (!c.quantize.empty() && info.epochs_done < c.epochs)
    say(run, "quantize: not yet: the float run stopped after epoch %lld of %lld (--resume it with --quantize)\n",
        static_cast<long long>(info.epochs_done), static_cast<long long>(c.epochs));
  if (!c.quantize.empty() && info.epochs_done == c.epochs) {
    result.quantization =
        std::make_shared<const QuantizeReport>(quantize_trained_model(c, *model, data, *eval_t, info));
    write_metrics(metrics_path, c, data.classes, records, result.final_accuracy, info.best_accuracy, last_path,
                  seconds_since(t_start), result.quantization.get());
  }
  say(run, "done: %lld/%lld epochs, validation accuracy %.2f%% (best %.2f%%) in %.1f s\n",
              static_cast<long long>(info.epochs_done), static_cast<long long>(c.epochs), 100 * result.final_accuracy,
              100 * result.best_accuracy, seconds_since(t_start));
  say(run, "files: %s (last), %s (best), %s\n", last_path.c_str(), best_path.c_str(), metrics_path.c_str());
  return result;
}

}  // namespace ember::apps
