#include "detect_trainer.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include <ember/autograd/grad_mode.h>
#include <ember/core/generator.h>
#include <ember/core/parallel.h>
#include <ember/datasets/data_loader.h>
#include <ember/datasets/detection.h>
#include <ember/datasets/map_dataset.h>
#include <ember/datasets/progress.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/optim/adam.h>
#include <ember/optim/sgd.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/json.h>
#include <ember/vision/detection/coco_eval.h>
#include <ember/vision/detection/transforms.h>

#include "detect_checkpoint.h"
#include "detect_data.h"

namespace ember::apps::detect {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using datasets::DetectionBatch;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A COCO sample as the model takes it: float [3, H, W] in [0, 1], boxes x1, y1, x2, y2.
auto model_samples(const std::shared_ptr<datasets::CocoDetection>& coco) {
  return datasets::map(coco, [](datasets::CocoSample s) {
    datasets::DetectionSample d = datasets::to_detection_sample(std::move(s));
    d.first = d.first.to(kFloat32).div(255.0);
    return d;
  });
}

std::unique_ptr<optim::Optimizer> make_optimizer(const DetectConfig& c, std::vector<Tensor> params) {
  if (c.optimizer == "adamw")
    return std::make_unique<optim::AdamW>(std::move(params),
                                          optim::AdamWOptions{.lr = c.lr, .weight_decay = c.weight_decay});
  if (c.optimizer == "sgd")
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions{.lr = c.lr, .momentum = 0.9,
                                                                               .weight_decay = c.weight_decay});
  EMBER_FAIL("ember-detect: unknown --optimizer '", c.optimizer, "' (expected adamw or sgd)");
}

// COCO bbox evaluation of the whole validation split (pycocotools' rules).
vision::detection::CocoEvalResult evaluate(models::detection::RetinaNet& model, const datasets::CocoDetection& val,
                                           datasets::DataLoader<datasets::DetectionSample, DetectionBatch>& loader) {
  model->eval();
  NoGradGuard no_grad;
  vision::detection::CocoEvaluator evaluator(datasets::coco_ground_truth(val));
  for (DetectionBatch& batch : loader) {
    const auto out = model->forward(batch.images);
    for (size_t i = 0; i < batch.images.size(); ++i) {
      const auto& d = out.detections[i];
      evaluator.update(batch.targets[i].at("image_id").item<int64_t>(), d.at("boxes"), d.at("scores"),
                       d.at("labels"));
    }
  }
  return evaluator.evaluate();
}

void write_metrics(const std::string& path, const DetectConfig& c, const DetectModelSpec& spec,
                   const DetectData& data, const std::vector<EpochRecord>& epochs,
                   const vision::detection::CocoEvalResult* last, const std::string& checkpoint, double total_s) {
  namespace json = serialize::json;
  std::string s = "{\n  \"model\": \"retinanet\",\n  \"backbone\": " + json::quote(spec.backbone) +
                  ",\n  \"fpn_channels\": " + std::to_string(spec.fpn_channels) +
                  ",\n  \"min_size\": " + std::to_string(spec.min_size) + ",\n  \"categories\": [";
  for (size_t i = 0; i < data.category_names.size(); ++i)
    s += (i ? ", " : "") + json::quote(data.category_names[i]);
  s += "],\n  \"epochs\": [\n";
  for (size_t i = 0; i < epochs.size(); ++i) {
    const EpochRecord& e = epochs[i];
    char line[400];
    std::snprintf(line, sizeof(line),
                  "    {\"epoch\": %lld, \"train_loss\": %.6f, \"classification_loss\": %.6f, "
                  "\"bbox_regression_loss\": %.6f, \"map\": %.6f, \"map50\": %.6f, \"map75\": %.6f, "
                  "\"lr\": %.6g, \"seconds\": %.2f}%s\n",
                  static_cast<long long>(e.epoch), e.train_loss, e.classification_loss, e.regression_loss, e.map,
                  e.map50, e.map75, e.lr, e.seconds, i + 1 < epochs.size() ? "," : "");
    s += line;
  }
  s += "  ],\n";
  if (last != nullptr) {
    // COCOeval's twelve stats of the last evaluation.
    static const char* kNames[12] = {"map", "map50", "map75", "map_small", "map_medium", "map_large",
                                     "ar1", "ar10", "ar100", "ar_small", "ar_medium", "ar_large"};
    s += "  \"final\": {";
    for (int k = 0; k < 12; ++k) {
      char v[64];
      std::snprintf(v, sizeof(v), "%s\"%s\": %.6f", k ? ", " : "", kNames[k], last->stats[k]);
      s += v;
    }
    s += "},\n";
  }
  char tail[64];
  std::snprintf(tail, sizeof(tail), "  \"total_seconds\": %.2f,\n", total_s);
  s += tail;
  s += "  \"checkpoint\": " + json::quote(checkpoint) + "\n}\n";
  std::ofstream f(path);
  f << s;
  EMBER_CHECK(f.good(), "ember-detect: cannot write '", path, "'");
}

}  // namespace

DetectResult train_detector(const DetectConfig& c) {
  const auto t_start = Clock::now();
  EMBER_CHECK(c.epochs >= 1 && c.batch_size >= 1, "ember-detect: --epochs and --batch-size must be >= 1, got ",
              c.epochs, " and ", c.batch_size);
  EMBER_CHECK(c.lr > 0 && c.weight_decay >= 0, "ember-detect: --lr must be positive and --weight-decay >= 0, got ",
              c.lr, " and ", c.weight_decay);
  EMBER_CHECK(c.hflip >= 0 && c.hflip <= 1, "ember-detect: --hflip must be a probability in [0, 1], got ", c.hflip);
  EMBER_CHECK(c.workers >= 0 && c.stop_after >= 0, "ember-detect: --workers and --stop-after must be >= 0");
  if (c.threads > 0) set_num_threads(static_cast<int>(c.threads));
  manual_seed(static_cast<uint64_t>(c.seed));
  fs::create_directories(c.output);

  const DetectData data = load_detect_data(c);
  const DetectModelSpec spec{.backbone = c.backbone,
                             .num_classes = data.num_classes,
                             .fpn_channels = c.fpn_channels,
                             .anchor_size = c.anchor_size,
                             // The shapes' images are 160 x 128: trained at their own size.
                             .min_size = c.min_size > 0 ? c.min_size : (data.generated ? 128 : 800),
                             .max_size = c.max_size > 0 ? c.max_size : (data.generated ? 256 : 1333)};
  models::detection::RetinaNet model = make_detector(spec);
  std::vector<Tensor> params;
  int64_t num_params = 0;
  for (const Tensor& p : model->parameters())
    if (p.requires_grad()) {
      params.push_back(p);
      num_params += p.numel();
    }

  const uint64_t seed = static_cast<uint64_t>(c.seed);
  datasets::DataLoader train_loader(
      model_samples(data.train),
      {.batch_size = c.batch_size, .shuffle = true, .num_workers = c.workers, .drop_last = true, .seed = seed},
      datasets::DetectionCollate{});
  datasets::DataLoader val_loader(model_samples(data.val),
                                  {.batch_size = 2 * c.batch_size, .num_workers = c.workers, .seed = seed},
                                  datasets::DetectionCollate{});
  const int64_t steps = train_loader.size();
  EMBER_CHECK(steps >= 1, "ember-detect: the training split (", data.train->size(),
              " images) is smaller than one batch of ", c.batch_size);
  auto optimizer = make_optimizer(c, params);
  optim::OneCycleLR scheduler(*optimizer,
                              optim::OneCycleLROptions{.max_lr = {c.lr}, .epochs = c.epochs, .steps_per_epoch = steps});

  DetectRunState state{.epochs = c.epochs, .batch_size = c.batch_size, .steps_per_epoch = steps, .seed = seed};
  if (!c.resume.empty()) {
    const DetectCheckpoint ck = load_detect_checkpoint(c.resume);
    EMBER_CHECK(ck.spec.backbone == spec.backbone && ck.spec.num_classes == spec.num_classes &&
                    ck.spec.fpn_channels == spec.fpn_channels && ck.spec.anchor_size == spec.anchor_size &&
                    ck.spec.min_size == spec.min_size && ck.spec.max_size == spec.max_size,
                "ember-detect: checkpoint '", c.resume, "' holds a ", ck.spec.backbone, " RetinaNet (",
                ck.spec.num_classes, " classes, FPN ", ck.spec.fpn_channels, ", anchors from ", ck.spec.anchor_size,
                ", min_size ", ck.spec.min_size, "), but this run builds a ", spec.backbone, " one (",
                spec.num_classes, " classes, FPN ", spec.fpn_channels, ", anchors from ", spec.anchor_size,
                ", min_size ", spec.min_size, ")");
    EMBER_CHECK(ck.state.epochs == c.epochs && ck.state.batch_size == c.batch_size && ck.state.steps_per_epoch == steps,
                "ember-detect: checkpoint '", c.resume, "' is of a run of ", ck.state.epochs, " epochs at batch ",
                ck.state.batch_size, " (", ck.state.steps_per_epoch, " steps each); resume with the same --epochs, "
                "--batch-size and data");
    EMBER_CHECK(ck.category_ids == data.category_ids, "ember-detect: checkpoint '", c.resume,
                "' was trained on other categories than the data's");
    model->load_state_dict(ck.model_state, /*strict=*/true);
    detect_checkpoint_format().restore_training_state(ck.tensors, ck.metadata, *optimizer);
    scheduler.load_state_dict(optim::read_scheduler_state(ck.metadata));
    state.epochs_done = ck.state.epochs_done;
    state.history = ck.state.history;
    std::printf("resume: %s after epoch %lld\n", c.resume.c_str(), static_cast<long long>(state.epochs_done));
  }
  std::printf("data: %s, %lld train / %lld val images, %zu categories; model: RetinaNet %s-FPN(%lld), %.2f M "
              "trainable parameters, input %lld-%lld px; %s lr %g (one-cycle), batch %lld\n",
              data.root.c_str(), static_cast<long long>(data.train->size()),
              static_cast<long long>(data.val->size()), data.category_ids.size(), spec.backbone.c_str(),
              static_cast<long long>(spec.fpn_channels), static_cast<double>(num_params) / 1e6,
              static_cast<long long>(spec.min_size), static_cast<long long>(spec.max_size), c.optimizer.c_str(), c.lr,
              static_cast<long long>(c.batch_size));
  std::fflush(stdout);

  const std::string last_path = (fs::path(c.output) / "checkpoint.safetensors").string();
  const std::string metrics_path = (fs::path(c.output) / "metrics.json").string();
  DetectResult result;
  std::optional<vision::detection::CocoEvalResult> last_eval;
  int64_t run_epochs = 0;
  for (int64_t epoch = state.epochs_done; epoch < c.epochs; ++epoch) {
    if (c.stop_after > 0 && run_epochs == c.stop_after) break;
    model->train();
    train_loader.set_epoch(epoch);
    // The flips of an epoch depend only on the seed and the epoch (so a resumed run flips as an uninterrupted one).
    Generator flips(seed * 1000003 + static_cast<uint64_t>(epoch) + 1);
    const auto te = Clock::now();
    double loss_sum = 0, cls_sum = 0, reg_sum = 0;
    int64_t seen = 0;
    ProgressBar bar({.total = steps,
                               .desc = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(c.epochs),
                               .plain = c.progress ? std::nullopt : std::optional<bool>(true),
                               .unit = "batch"});
    for (DetectionBatch& batch : train_loader) {
      for (size_t i = 0; i < batch.images.size(); ++i)
        if (ember::rand({1}, kFloat64, &flips).item<double>() < c.hflip)
          std::tie(batch.images[i], batch.targets[i]) = vision::detection::hflip(batch.images[i], batch.targets[i]);
      optimizer->zero_grad();
      const auto out = model->forward(batch.images, batch.targets);
      const Tensor cls = out.losses.at("classification"), reg = out.losses.at("bbox_regression");
      const Tensor loss = cls + reg;
      loss.backward();
      optimizer->step();
      scheduler.step();
      loss_sum += loss.item<double>();
      cls_sum += cls.item<double>();
      reg_sum += reg.item<double>();
      ++seen;
      bar.set_postfix({{"loss", loss_sum / static_cast<double>(seen)},
                       {"img/s", static_cast<double>(seen * c.batch_size) / seconds_since(te)}});
      bar.update();
    }
    bar.close();
    const double train_seconds = seconds_since(te);
    last_eval = evaluate(model, *data.val, val_loader);
    const double n = static_cast<double>(std::max<int64_t>(1, seen));
    const EpochRecord rec{.epoch = epoch + 1,
                          .train_loss = loss_sum / n,
                          .classification_loss = cls_sum / n,
                          .regression_loss = reg_sum / n,
                          .map = last_eval->stats[0],
                          .map50 = last_eval->stats[1],
                          .map75 = last_eval->stats[2],
                          .lr = optimizer->param_groups()[0].options.at("lr").to_double(),
                          .seconds = seconds_since(te)};
    state.history.push_back(rec);
    state.epochs_done = epoch + 1;
    save_detect_checkpoint(last_path, model, spec, data.category_ids, data.category_names, optimizer.get(),
                           &scheduler, state);
    std::printf("epoch %lld/%lld: loss %.4f (classification %.4f, box %.4f); val mAP %.4f, mAP@.5 %.4f, "
                "mAP@.75 %.4f; train %.1f s, total %.1f s\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(c.epochs), rec.train_loss,
                rec.classification_loss, rec.regression_loss, rec.map, rec.map50, rec.map75, train_seconds,
                rec.seconds);
    std::fflush(stdout);
    write_metrics(metrics_path, c, spec, data, state.history, &*last_eval, last_path, seconds_since(t_start));
    ++run_epochs;
  }
  if (!last_eval) {
    // Nothing left to train (a finished run resumed): evaluate what there is.
    last_eval = evaluate(model, *data.val, val_loader);
    write_metrics(metrics_path, c, spec, data, state.history, &*last_eval, last_path, seconds_since(t_start));
  }
  std::printf("%s", last_eval->summary().c_str());
  result.epochs_done = state.epochs_done;
  result.map = last_eval->stats[0];
  result.map50 = last_eval->stats[1];
  result.checkpoint = last_path;
  std::printf("done: %lld/%lld epochs, val mAP %.4f, mAP@.5 %.4f in %.1f s; files: %s, %s\n",
              static_cast<long long>(state.epochs_done), static_cast<long long>(c.epochs), result.map, result.map50,
              seconds_since(t_start), last_path.c_str(), metrics_path.c_str());
  return result;
}

}  // namespace ember::apps::detect
