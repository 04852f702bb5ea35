#pragma once
// ember-train --quantize ptq|qat: the stage after float training (or after
// --resume of a finished float run). PTQ calibrates the model's quantizable
// form on training batches and converts it; QAT fine-tunes it with fake
// quantization (prepare_qat) and converts it. Both then compare the float
// and int8 models on the validation set (top-1 accuracy, images/s of the
// forward passes, checkpoint bytes) and save the int8 checkpoint
// (apps/common/quantized_checkpoint.h).
#include <cstdint>
#include <string>

#include <ember/models/classifier.h>

#include "common/checkpoint.h"
#include "trainer.h"
#include "training_data.h"

namespace ember::apps {

// Checks the quantization flags before any training starts: an unknown
// --quantize or --qengine, a model without a quantizable form (listing those
// with one), --float64, or bad counts are one ember::Error each.
void check_quantize_config(const TrainConfig& c);

struct QuantizeReport {
  std::string mode, engine, qconfig;
  int64_t calibration_batches = 0, calibration_images = 0;  // ptq
  int64_t qat_epochs = 0;                                   // qat
  double float_accuracy = 0, int8_accuracy = 0;             // top-1 on the validation set
  int64_t eval_images = 0;
  double float_images_per_s = 0, int8_images_per_s = 0;     // forward passes only, eval batches
  int64_t float_bytes = 0, int8_bytes = 0;                  // model-only float checkpoint vs the int8 one
  double seconds = 0;
  std::string checkpoint;                                   // the int8 checkpoint
};

QuantizeReport quantize_trained_model(const TrainConfig& c, models::ImageClassifierImpl& float_model,
                                      const TrainingData& data, const vision::transforms::TransformImpl& eval_transform,
                                      const CheckpointInfo& info);

// The report as a JSON object (metrics.json's "quantization").
std::string quantize_report_json(const QuantizeReport& r, const std::string& indent);

}  // namespace ember::apps
