#pragma once
// What ember-text's two training tasks share: the run's scope (seed, threads,
// deterministic mode), resuming, optimizers, timing and metrics.json.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ember/optim/optimizer.h>

#include "text_checkpoint.h"
#include "text_config.h"

namespace ember::apps::text_app {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0);

// Sets the seed and thread count, turns deterministic algorithms on for the
// run and restores the previous setting when it ends (a program, or a test,
// may train more than once).
class RunScope {
 public:
  explicit RunScope(const TextConfig& config);
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

 private:
  bool saved_deterministic_;
};

// The checkpoint of --resume, checked against this run's task and model, or
// nullopt without --resume.
std::optional<TextCheckpoint> load_resume(const TextConfig& config, const std::string& task);

// SGD (no momentum, as both tutorials) or AdamW.
std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& name, double lr, std::vector<Tensor> params);

struct MetricsSummary {
  std::string task, model, tokenizer, metric;  // metric: "accuracy" or "perplexity"
  int64_t vocab_size = 0;
  std::vector<std::string> classes;
  std::vector<EpochRecord> epochs;
  std::optional<double> test_metric, test_loss;
  std::string checkpoint;
  double total_seconds = 0;
};

// OUTPUT/metrics.json: the run's epochs (train loss, val accuracy or
// perplexity, lr, time, tokens/s) and the test result once the run is done.
void write_metrics(const std::string& path, const MetricsSummary& summary);

// The checkpoint path of a run (OUTPUT/checkpoint.safetensors) and its best copy.
std::string last_checkpoint_path(const TextConfig& config);
std::string best_checkpoint_path(const TextConfig& config);

}  // namespace ember::apps::text_app
