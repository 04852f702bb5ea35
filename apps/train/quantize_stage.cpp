#include "quantize_stage.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include <ember/ao/quantization/qat_modules.h>
#include <ember/ao/quantization/qconfig.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/autograd/grad_mode.h>
#include <ember/datasets/data_loader.h>
#include <ember/models/quantization/registry.h>
#include <ember/nn/functional/loss.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/optim/sgd.h>
#include <ember/serialize/json.h>

#include "common/quantized_checkpoint.h"

namespace ember::apps {
namespace {

namespace fs = std::filesystem;
namespace mq = models::quantization;
namespace aoq = ao::quantization;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

using Batch = std::pair<Tensor, Tensor>;

// The validation set in memory, so that the timing covers the forward passes only.
std::vector<Batch> validation_batches(const TrainConfig& c, const TrainingData& data) {
  datasets::DataLoader loader(data.val, datasets::DataLoaderOptions{.batch_size = 2 * c.batch_size,
                                                                    .num_workers = c.workers,
                                                                    .seed = static_cast<uint64_t>(c.seed)});
  std::vector<Batch> batches;
  for (auto& [images, labels] : loader) batches.emplace_back(images, labels);
  return batches;
}

struct TimedEval {
  double accuracy = 0, images_per_s = 0;
  int64_t images = 0;
};

// Top-1 accuracy and images/s of `forward` over the batches; one untimed
// forward first (the int8 kernels pack their weights on the first call).
TimedEval timed_eval(const std::function<Tensor(const Tensor&)>& forward, const std::vector<Batch>& batches) {
  NoGradGuard no_grad;
  TimedEval r;
  if (batches.empty()) return r;
  forward(batches.front().first);
  int64_t correct = 0;
  double seconds = 0;
  for (const auto& [images, labels] : batches) {
    const auto t0 = Clock::now();
    const Tensor logits = forward(images);
    seconds += seconds_since(t0);
    correct += logits.argmax(1).eq(labels).sum().item<int64_t>();
    r.images += labels.size(0);
  }
  r.accuracy = static_cast<double>(correct) / static_cast<double>(r.images);
  r.images_per_s = seconds > 0 ? static_cast<double>(r.images) / seconds : 0;
  return r;
}

datasets::DataLoaderOptions training_batches(const TrainConfig& c) {
  // Another stream than the float epochs' (seed + 1).
  return {.batch_size = c.batch_size, .shuffle = true, .num_workers = c.workers, .drop_last = true,
          .seed = static_cast<uint64_t>(c.seed) + 1};
}

// PTQ (torchvision's train_quantization.py with --post-training-quantize):
// eval-mode fusion, get_default_qconfig(engine), N training batches through
// the observers (the training transform, as the reference script), convert.
// Returns the number of batches and images it ran.
std::pair<int64_t, int64_t> calibrate(const TrainConfig& c, mq::QuantizableModuleImpl& q, const TrainingData& data) {
  q.eval();
  q.fuse_model(false);
  aoq::prepare(q, {{"", aoq::get_default_qconfig(c.qengine)}});
  datasets::DataLoader loader(data.train, training_batches(c));
  NoGradGuard no_grad;
  int64_t batches = 0, images = 0;
  for (auto& [x, labels] : loader) {
    if (batches == c.calibration_batches) break;
    q.forward(x);
    ++batches;
    images += labels.size(0);
  }
  aoq::convert(q);
  return {batches, images};
}

// QAT (the reference script's recipe, shortened): training-mode fusion
// (ConvBn2d / ConvBnReLU2d keep their BatchNorm), prepare_qat with
// get_default_qat_qconfig(engine), SGD (momentum 0.9) with a cosine schedule
// from --qat-lr; with two or more epochs the last one runs with the
// observers off and the BatchNorm statistics frozen (the script's
// num_observer_update_epochs / num_batch_norm_update_epochs); then convert.
void quantization_aware_training(const TrainConfig& c, mq::QuantizableModuleImpl& q, const TrainingData& data) {
  q.train();
  q.fuse_model(true);
  aoq::prepare_qat(q, {{"", aoq::get_default_qat_qconfig(c.qengine)}});
  datasets::DataLoader loader(data.train, training_batches(c));
  const int64_t steps = loader.size();
  optim::SGD optimizer(q.parameters(), optim::SGDOptions{.lr = c.qat_lr, .momentum = 0.9,
                                                         .weight_decay = c.weight_decay});
  optim::CosineAnnealingLR schedule(optimizer, c.qat_epochs * steps);
  for (int64_t epoch = 0; epoch < c.qat_epochs; ++epoch) {
    if (c.qat_epochs >= 2 && epoch == c.qat_epochs - 1) {
      aoq::disable_observer(q);
      aoq::freeze_bn_stats(q);
    }
    q.train();
    loader.set_epoch(epoch);
    const auto t0 = Clock::now();
    double loss_sum = 0;
    int64_t correct = 0, seen = 0;
    for (auto& [x, labels] : loader) {
      optimizer.zero_grad();
      const Tensor logits = q.forward(x);
      const Tensor loss = nn::functional::cross_entropy(logits, labels, {.label_smoothing = c.label_smoothing});
      loss.backward();
      optimizer.step();
      schedule.step();
      loss_sum += loss.item<double>() * static_cast<double>(labels.size(0));
      correct += logits.argmax(1).eq(labels).sum().item<int64_t>();
      seen += labels.size(0);
    }
    std::printf("qat epoch %lld/%lld: train loss %.4f, train acc %.2f%% (fake-quantized), %.0f img/s, %.1f s\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(c.qat_epochs),
                loss_sum / static_cast<double>(seen), 100.0 * static_cast<double>(correct) / static_cast<double>(seen),
                static_cast<double>(seen) / seconds_since(t0), seconds_since(t0));
    std::fflush(stdout);
  }
  q.eval();
  aoq::convert(q);
}

}  // namespace

void check_quantize_config(const TrainConfig& c) {
  if (c.quantize.empty()) return;
  EMBER_CHECK(c.quantize == "ptq" || c.quantize == "qat", "unknown --quantize '", c.quantize,
              "' (expected ptq or qat)");
  static const std::set<std::string> engines = {"onednn", "x86", "qnnpack", "fbgemm"};
  EMBER_CHECK(engines.contains(c.qengine), "unknown --qengine '", c.qengine,
              "' (expected onednn, x86, qnnpack or fbgemm)");
  EMBER_CHECK(mq::has_quantizable_form(c.model), "--quantize: model '", c.model,
              "' has no quantizable form; models with one: ", joined(mq::list_quantizable_models()));
  EMBER_CHECK(!c.float64, "--quantize does not combine with --float64 (the int8 model is quantized from float32)");
  if (c.quantize == "ptq")
    EMBER_CHECK(c.calibration_batches >= 1, "--calibration-batches must be >= 1, got ", c.calibration_batches);
  if (c.quantize == "qat") {
    EMBER_CHECK(c.qat_epochs >= 1, "--qat-epochs must be >= 1, got ", c.qat_epochs);
    EMBER_CHECK(c.qat_lr > 0, "--qat-lr must be positive, got ", c.qat_lr);
  }
}

QuantizeReport quantize_trained_model(const TrainConfig& c, models::ImageClassifierImpl& float_model,
                                      const TrainingData& data, const vision::transforms::TransformImpl& eval_transform,
                                      const CheckpointInfo& info) {
  const auto t_start = Clock::now();
  QuantizeReport r;
  r.mode = c.quantize;
  r.engine = c.qengine;
  const QuantizationInfo qinfo{.engine = c.qengine, .mode = c.quantize};
  r.qconfig = qconfig_name(qinfo);
  const std::vector<Batch> val = validation_batches(c, data);

  float_model.eval();
  const TimedEval f = timed_eval(
      [&](const Tensor& x) {
        return float_model.forward(c.channels_last ? x.contiguous(MemoryFormat::ChannelsLast) : x);
      },
      val);

  // The quantizable form with the trained weights (the same state_dict keys).
  mq::QuantizableModel q = mq::create(c.model, {.num_classes = info.num_classes});
  q->load_state_dict(float_model.state_dict(), /*strict=*/true);
  if (c.quantize == "ptq") {
    const auto t0 = Clock::now();
    std::tie(r.calibration_batches, r.calibration_images) = calibrate(c, *q, data);
    std::printf("ptq: calibrated on %lld training batches (%lld images) with %s, converted in %.1f s\n",
                static_cast<long long>(r.calibration_batches), static_cast<long long>(r.calibration_images),
                r.qconfig.c_str(), seconds_since(t0));
  } else {
    r.qat_epochs = c.qat_epochs;
    quantization_aware_training(c, *q, data);
  }
  const TimedEval i8 = timed_eval([&](const Tensor& x) { return q->forward(x); }, val);

  r.checkpoint = (fs::path(c.output) / "quantized.safetensors").string();
  save_quantized_checkpoint(r.checkpoint, *q, eval_transform, info, qinfo);
  r.int8_bytes = static_cast<int64_t>(fs::file_size(r.checkpoint));
  // The float side of the size comparison: a model-only float checkpoint
  // (the training checkpoints also hold the optimizer's state).
  const std::string float_only = (fs::path(c.output) / ".float-model-size.safetensors").string();
  save_checkpoint(float_only, float_model, nullptr, nullptr, eval_transform, info);
  r.float_bytes = static_cast<int64_t>(fs::file_size(float_only));
  fs::remove(float_only);

  r.float_accuracy = f.accuracy;
  r.int8_accuracy = i8.accuracy;
  r.eval_images = f.images;
  r.float_images_per_s = f.images_per_s;
  r.int8_images_per_s = i8.images_per_s;
  r.seconds = seconds_since(t_start);
  std::printf("quantize: %s, %s: top-1 float %.2f%%, int8 %.2f%% (%+.2f points) on %lld validation images\n",
              r.mode.c_str(), r.engine.c_str(), 100 * r.float_accuracy, 100 * r.int8_accuracy,
              100 * (r.int8_accuracy - r.float_accuracy), static_cast<long long>(r.eval_images));
  std::printf("quantize: size float %.2f MB, int8 %.2f MB (%.2fx smaller); speed float %.0f img/s, int8 %.0f img/s "
              "(%.2fx; forward passes, batches of %lld)\n",
              static_cast<double>(r.float_bytes) / 1e6, static_cast<double>(r.int8_bytes) / 1e6,
              static_cast<double>(r.float_bytes) / static_cast<double>(r.int8_bytes), r.float_images_per_s,
              r.int8_images_per_s, r.float_images_per_s > 0 ? r.int8_images_per_s / r.float_images_per_s : 0.0,
              static_cast<long long>(2 * c.batch_size));
  std::printf("quantize: int8 checkpoint %s\n", r.checkpoint.c_str());
  std::fflush(stdout);
  return r;
}

std::string quantize_report_json(const QuantizeReport& r, const std::string& indent) {
  namespace json = serialize::json;
  const std::string in = indent + "  ";
  char numbers[640];
  std::snprintf(numbers, sizeof(numbers),
                "%s\"calibration_batches\": %lld,\n%s\"calibration_images\": %lld,\n%s\"qat_epochs\": %lld,\n"
                "%s\"float_accuracy\": %.6f,\n%s\"int8_accuracy\": %.6f,\n%s\"accuracy_change\": %.6f,\n"
                "%s\"eval_images\": %lld,\n%s\"float_bytes\": %lld,\n%s\"int8_bytes\": %lld,\n"
                "%s\"float_images_per_s\": %.1f,\n%s\"int8_images_per_s\": %.1f,\n%s\"seconds\": %.2f,\n",
                in.c_str(), static_cast<long long>(r.calibration_batches), in.c_str(),
                static_cast<long long>(r.calibration_images), in.c_str(), static_cast<long long>(r.qat_epochs),
                in.c_str(), r.float_accuracy, in.c_str(), r.int8_accuracy, in.c_str(),
                r.int8_accuracy - r.float_accuracy, in.c_str(), static_cast<long long>(r.eval_images), in.c_str(),
                static_cast<long long>(r.float_bytes), in.c_str(), static_cast<long long>(r.int8_bytes), in.c_str(),
                r.float_images_per_s, in.c_str(), r.int8_images_per_s, in.c_str(), r.seconds);
  return "{\n" + in + "\"mode\": " + json::quote(r.mode) + ",\n" + in + "\"engine\": " + json::quote(r.engine) +
         ",\n" + in + "\"qconfig\": " + json::quote(r.qconfig) + ",\n" + numbers + in +
         "\"checkpoint\": " + json::quote(r.checkpoint) + "\n" + indent + "}";
}

}  // namespace ember::apps
