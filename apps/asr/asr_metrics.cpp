#include "asr_metrics.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include <ember/core/error.h>
#include <ember/serialize/json.h>

namespace ember::apps::asr_app {
namespace {

std::string num(double x, const char* format = "%.6f") {
  if (!std::isfinite(x)) return "null";
  char b[48];
  std::snprintf(b, sizeof(b), format, x);
  return b;
}

std::string rates(const ErrorRates& r) { return "{\"cer\": " + num(r.cer) + ", \"wer\": " + num(r.wer) + "}"; }

}  // namespace

void write_metrics(const std::string& path, const MetricsSummary& m) {
  namespace json = serialize::json;
  std::string s = "{\n  \"model\": \"wav2letter\",\n  \"input_type\": " + json::quote(m.features.input_type) +
                  ",\n  \"num_features\": " + std::to_string(m.features.num_features()) +
                  ",\n  \"sample_rate\": " + std::to_string(m.features.sample_rate) +
                  ",\n  \"n_fft\": " + std::to_string(m.features.n_fft) +
                  ",\n  \"hop_length\": " + std::to_string(m.features.hop_length) +
                  ",\n  \"num_classes\": " + std::to_string(m.num_classes) +
                  ",\n  \"train_subset\": " + json::quote(m.train_subset) +
                  ",\n  \"train_utterances\": " + std::to_string(m.train_utterances) +
                  ",\n  \"train_hours\": " + num(m.train_hours, "%.4f") +
                  ",\n  \"dev_subset\": " + json::quote(m.dev_subset) + ",\n  \"epochs\": [\n";
  for (size_t i = 0; i < m.epochs.size(); ++i) {
    const EpochRecord& e = m.epochs[i];
    s += "    {\"epoch\": " + std::to_string(e.epoch) + ", \"train_loss\": " + num(e.train_loss) +
         ", \"dev_loss\": " + num(e.dev_loss) + ", \"dev_cer_greedy\": " + num(e.dev_cer_greedy) +
         ", \"dev_wer_greedy\": " + num(e.dev_wer_greedy) + ", \"dev_cer_beam\": " + num(e.dev_cer_beam) +
         ", \"dev_wer_beam\": " + num(e.dev_wer_beam) + ", \"lr\": " + num(e.lr, "%.6g") +
         ", \"seconds\": " + num(e.seconds, "%.2f") + ", \"utterances_per_s\": " + num(e.utterances_per_s, "%.2f") +
         "}" + (i + 1 < m.epochs.size() ? "," : "") + "\n";
  }
  s += "  ],\n";
  if (m.eval) {
    const EvalSummary& e = *m.eval;
    s += "  \"eval\": {\"subset\": " + json::quote(e.subset) + ", \"utterances\": " + std::to_string(e.utterances) +
         ", \"speakers\": " + std::to_string(e.speakers) + ", \"greedy\": " + rates(e.greedy) +
         ", \"beam\": " + rates(e.beam) + ", \"beam_size\": " + std::to_string(e.beam_size) +
         ", \"lexicon\": " + (e.lexicon.empty() ? std::string("null") : json::quote(e.lexicon)) + "},\n";
  }
  s += "  \"total_seconds\": " + num(m.total_seconds, "%.2f") + ",\n  \"checkpoint\": " + json::quote(m.checkpoint) +
       "\n}\n";
  std::ofstream f(path);
  f << s;
  EMBER_CHECK(f.good(), "ember-asr: cannot write '", path, "'");
}

}  // namespace ember::apps::asr_app
