#pragma once
// ember-separate's OUTPUT/metrics.json: the data and model of the run, every
// epoch (training SI-SNR, dev SI-SNRi, learning rate, time, segments/s) and,
// once the run is complete, the test split's SI-SNRi and SDRi.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/models/conv_tasnet.h>

#include "separate_checkpoint.h"

namespace ember::apps::separate_app {

struct MetricsSummary {
  std::string data;  // the splits' description
  std::string layout, task;
  int64_t sample_rate = 0;
  models::ConvTasNetOptions model;
  int64_t num_parameters = 0;
  int64_t receptive_field = 0;  // encoder frames one mask frame sees
  double segment_seconds = 0;
  int64_t batch_size = 0;
  std::vector<EpochRecord> epochs;
  std::optional<double> test_si_snri, test_sdri;
  int64_t test_mixtures = 0;
  std::string checkpoint;
  double total_seconds = 0;
};

void write_metrics(const std::string& path, const MetricsSummary& summary);

}  // namespace ember::apps::separate_app
