#include "run_common.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <ember/core/determinism.h>
#include <ember/core/generator.h>
#include <ember/core/parallel.h>
#include <ember/optim/adam.h>
#include <ember/optim/sgd.h>
#include <ember/serialize/json.h>

namespace ember::apps::text_app {

namespace fs = std::filesystem;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

RunScope::RunScope(const TextConfig& c) : saved_deterministic_(are_deterministic_algorithms_enabled()) {
  if (c.threads > 0) set_num_threads(static_cast<int>(c.threads));
  if (c.deterministic) use_deterministic_algorithms(true);
  manual_seed(static_cast<uint64_t>(c.seed));
}

RunScope::~RunScope() { use_deterministic_algorithms(saved_deterministic_); }

std::optional<TextCheckpoint> load_resume(const TextConfig& c, const std::string& task) {
  if (c.resume.empty()) return std::nullopt;
  TextCheckpoint ckpt = load_text_checkpoint(c.resume);
  EMBER_CHECK(ckpt.state.task == task, "ember-text: checkpoint '", c.resume, "' is for --task ", ckpt.state.task,
              ", not ", task);
  return ckpt;
}

std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& name, double lr, std::vector<Tensor> params) {
  if (name == "sgd") return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions{.lr = lr});
  if (name == "adamw")
    return std::make_unique<optim::AdamW>(std::move(params), optim::AdamWOptions{.lr = lr, .weight_decay = 0.01});
  EMBER_FAIL("ember-text: unknown optimizer '", name, "'");
}

void write_metrics(const std::string& path, const MetricsSummary& m) {
  namespace json = serialize::json;
  std::string s = "{\n  \"task\": " + json::quote(m.task) + ",\n  \"model\": " + json::quote(m.model) +
                  ",\n  \"tokenizer\": " + json::quote(m.tokenizer) +
                  ",\n  \"vocab_size\": " + std::to_string(m.vocab_size) + ",\n  \"classes\": [";
  for (size_t i = 0; i < m.classes.size(); ++i) s += (i ? ", " : "") + json::quote(m.classes[i]);
  s += "],\n  \"metric\": " + json::quote(m.metric) + ",\n  \"epochs\": [\n";
  for (size_t i = 0; i < m.epochs.size(); ++i) {
    const EpochRecord& e = m.epochs[i];
    char line[400];
    std::snprintf(line, sizeof(line),
                  "    {\"epoch\": %lld, \"train_loss\": %.6f, \"val_%s\": %.6f, \"val_loss\": %.6f, \"lr\": %.6g, "
                  "\"seconds\": %.2f, \"tokens_per_s\": %.1f}%s\n",
                  static_cast<long long>(e.epoch), e.train_loss, m.metric.c_str(), e.val_metric, e.val_loss, e.lr,
                  e.seconds, e.tokens_per_s, i + 1 < m.epochs.size() ? "," : "");
    s += line;
  }
  s += "  ],\n";
  if (m.test_metric) {
    char line[160];
    std::snprintf(line, sizeof(line), "  \"test_%s\": %.6f,\n  \"test_loss\": %.6f,\n", m.metric.c_str(),
                  *m.test_metric, m.test_loss.value_or(0.0));
    s += line;
  }
  char tail[80];
  std::snprintf(tail, sizeof(tail), "  \"total_seconds\": %.2f,\n", m.total_seconds);
  s += tail;
  s += "  \"checkpoint\": " + json::quote(m.checkpoint) + "\n}\n";
  std::ofstream f(path);
  f << s;
  EMBER_CHECK(f.good(), "ember-text: cannot write '", path, "'");
}

std::string last_checkpoint_path(const TextConfig& c) {
  return (fs::path(c.output) / "checkpoint.safetensors").string();
}
std::string best_checkpoint_path(const TextConfig& c) { return (fs::path(c.output) / "best.safetensors").string(); }

}  // namespace ember::apps::text_app
