#include "quantized_checkpoint.h"

#include <ember/ao/quantization/qconfig.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/models/quantization/quantized_state.h>
#include <ember/ops/factories.h>

namespace ember::apps {
namespace {

namespace mq = models::quantization;
namespace aoq = ao::quantization;

constexpr const char* kEngineKey = "quantized";
constexpr const char* kModeKey = "quantization";
constexpr const char* kQConfigKey = "qconfig";

}  // namespace

std::string qconfig_name(const QuantizationInfo& q) {
  return (q.mode == "qat" ? "get_default_qat_qconfig(\"" : "get_default_qconfig(\"") + q.engine + "\")";
}

void save_quantized_checkpoint(const std::string& path, nn::Module& quantized_model,
                               const vision::transforms::TransformImpl& eval_transform, const CheckpointInfo& info,
                               const QuantizationInfo& q) {
  Metadata meta = checkpoint_metadata(info, eval_transform);
  meta[kEngineKey] = q.engine;
  meta[kModeKey] = q.mode;
  meta[kQConfigKey] = qconfig_name(q);
  write_checkpoint(path, mq::quantized_state_dict(quantized_model), meta);
}

bool is_quantized(const Checkpoint& checkpoint) { return checkpoint.metadata.find(kEngineKey) != nullptr; }

QuantizationInfo quantization_info(const Checkpoint& checkpoint, const std::string& path) {
  const std::string* engine = checkpoint.metadata.find(kEngineKey);
  const std::string* mode = checkpoint.metadata.find(kModeKey);
  EMBER_CHECK(engine != nullptr, "checkpoint '", path, "' is not quantized (no \"", kEngineKey, "\" metadata)");
  return {.engine = *engine, .mode = mode != nullptr ? *mode : "ptq"};
}

mq::QuantizableModel load_quantized_model(const Checkpoint& checkpoint, const std::string& path) {
  const QuantizationInfo q = quantization_info(checkpoint, path);
  mq::QuantizableModel model = mq::create(checkpoint.info.model, {.num_classes = checkpoint.info.num_classes});
  // Only the module types matter here (the file overwrites every parameter):
  // PTQ's eval-mode fusion and a min/max observer give the types a QAT model
  // converts to as well (ConvBnReLU2d -> quantized ConvReLU2d, ...).
  model->eval();
  model->fuse_model(false);
  aoq::prepare(*model, {{"", mq::quantize_model_qconfig(q.engine)}});
  {
    NoGradGuard no_grad;
    // A deterministic ramp in [-1, 1] (no random draws): any input fixes the types.
    const int64_t s = checkpoint.info.image_size;
    model->forward(arange(3 * s * s, kFloat32).div(static_cast<double>(3 * s * s)).mul(2).sub(1).reshape({1, 3, s, s}));
  }
  aoq::convert(*model);
  try {
    mq::load_quantized_state(*model, checkpoint.model_state, /*strict=*/true);
  } catch (const std::exception& e) {
    EMBER_FAIL("quantized checkpoint '", path, "': ", e.what());
  }
  return model;
}

}  // namespace ember::apps
