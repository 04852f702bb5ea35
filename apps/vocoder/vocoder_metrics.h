#pragma once
// ember-vocoder's OUT/metrics.json: the run's features and model size, every
// epoch (train and validation loss, learning rate, time, samples/s), and once
// the run is done the test distances (log-mel L1 of the model, silence and
// noise baselines, the ratio to the better baseline) and the generated files.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocoder_checkpoint.h"
#include "vocoder_config.h"
#include "vocoder_features.h"

namespace ember::apps::vocoder {

struct MetricsSummary {
  FeatureSpec features;
  ModelSpec model;
  int64_t train_utterances = 0, val_utterances = 0, parameters = 0;
  std::vector<EpochRecord> epochs;
  std::optional<Evaluation> test;
  std::vector<std::string> samples;
  std::string checkpoint;
  double total_seconds = 0;
};

void write_metrics(const std::string& path, const MetricsSummary& summary);

}  // namespace ember::apps::vocoder
