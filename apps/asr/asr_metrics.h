#pragma once
// ember-asr's OUT/metrics.json: the run's features, every epoch (train loss,
// dev loss, dev CER/WER of greedy and beam decoding, lr, time, speed) and the
// held-out evaluation once the run is complete.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asr_checkpoint.h"
#include "asr_config.h"

namespace ember::apps::asr_app {

struct EvalSummary {
  std::string subset;
  int64_t utterances = 0, speakers = 0;
  ErrorRates greedy, beam;
  int64_t beam_size = 0;
  std::string lexicon;  // empty: none
};

struct MetricsSummary {
  FeatureSpec features;
  int64_t num_classes = 0;
  std::string train_subset, dev_subset;
  int64_t train_utterances = 0;
  double train_hours = 0;
  std::vector<EpochRecord> epochs;
  std::optional<EvalSummary> eval;
  double total_seconds = 0;
  std::string checkpoint;
};

void write_metrics(const std::string& path, const MetricsSummary& summary);

}  // namespace ember::apps::asr_app
