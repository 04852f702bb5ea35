#include "vocoder_metrics.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <ember/core/error.h>
#include <ember/serialize/json.h>

namespace ember::apps::vocoder {

void write_metrics(const std::string& path, const MetricsSummary& m) {
  namespace json = serialize::json;
  char buf[600];
  std::string s = "{\n  \"model\": \"wavernn\",\n";
  std::snprintf(buf, sizeof(buf),
                "  \"sample_rate\": %lld,\n  \"hop_length\": %lld,\n  \"n_mels\": %lld,\n  \"bits\": %lld,\n"
                "  \"n_rnn\": %lld,\n  \"n_fc\": %lld,\n  \"n_res_block\": %lld,\n  \"parameters\": %lld,\n"
                "  \"train_utterances\": %lld,\n  \"val_utterances\": %lld,\n  \"epochs\": [\n",
                static_cast<long long>(m.features.sample_rate), static_cast<long long>(m.features.hop_length()),
                static_cast<long long>(m.features.n_mels), static_cast<long long>(m.features.bits),
                static_cast<long long>(m.model.n_rnn), static_cast<long long>(m.model.n_fc),
                static_cast<long long>(m.model.n_res_block), static_cast<long long>(m.parameters),
                static_cast<long long>(m.train_utterances), static_cast<long long>(m.val_utterances));
  s += buf;
  for (size_t i = 0; i < m.epochs.size(); ++i) {
    const EpochRecord& e = m.epochs[i];
    std::snprintf(buf, sizeof(buf),
                  "    {\"epoch\": %lld, \"train_loss\": %.6f, \"val_loss\": %.6f, \"lr\": %.6g, \"seconds\": %.2f, "
                  "\"samples_per_s\": %.1f}%s\n",
                  static_cast<long long>(e.epoch), e.train_loss, e.val_loss, e.lr, e.seconds, e.samples_per_s,
                  i + 1 < m.epochs.size() ? "," : "");
    s += buf;
  }
  s += "  ],\n";
  if (m.test) {
    const Evaluation& t = *m.test;
    std::snprintf(buf, sizeof(buf),
                  "  \"test\": {\"distance\": \"log-mel L1\", \"utterances\": %lld, \"model\": %.6f, "
                  "\"silence\": %.6f, \"noise\": %.6f, \"ratio_to_best_baseline\": %.6f, \"seconds\": %.2f},\n",
                  static_cast<long long>(t.utterances), t.model, t.silence, t.noise,
                  t.model / std::min(t.silence, t.noise), t.seconds);
    s += buf;
    s += "  \"samples\": [";
    for (size_t i = 0; i < m.samples.size(); ++i) s += (i ? ", " : "") + json::quote(m.samples[i]);
    s += "],\n";
  }
  std::snprintf(buf, sizeof(buf), "  \"total_seconds\": %.2f,\n", m.total_seconds);
  s += buf;
  s += "  \"checkpoint\": " + json::quote(m.checkpoint) + "\n}\n";
  std::ofstream f(path);
  f << s;
  EMBER_CHECK(f.good(), "ember-vocoder: cannot write '", path, "'");
}

}  // namespace ember::apps::vocoder
