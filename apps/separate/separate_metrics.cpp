#include "separate_metrics.h"

#include <cstdio>
#include <fstream>

#include <ember/core/error.h>
#include <ember/serialize/json.h>

namespace ember::apps::separate_app {

void write_metrics(const std::string& path, const MetricsSummary& m) {
  namespace json = serialize::json;
  const models::ConvTasNetOptions& o = m.model;
  char buf[600];
  std::string s = "{\n  \"data\": " + json::quote(m.data) + ",\n  \"layout\": " + json::quote(m.layout) +
                  ",\n  \"task\": " + json::quote(m.task) + ",\n  \"sample_rate\": " + std::to_string(m.sample_rate) +
                  ",\n";
  std::snprintf(buf, sizeof(buf),
                "  \"model\": {\"num_sources\": %lld, \"enc_kernel_size\": %lld, \"enc_num_feats\": %lld, "
                "\"msk_kernel_size\": %lld, \"msk_num_feats\": %lld, \"msk_num_hidden_feats\": %lld, "
                "\"msk_num_layers\": %lld, \"msk_num_stacks\": %lld, \"msk_activate\": %s},\n"
                "  \"num_parameters\": %lld,\n  \"receptive_field\": %lld,\n  \"segment_seconds\": %g,\n"
                "  \"batch_size\": %lld,\n  \"metric\": \"si_snri_db\",\n  \"epochs\": [\n",
                static_cast<long long>(o.num_sources), static_cast<long long>(o.enc_kernel_size),
                static_cast<long long>(o.enc_num_feats), static_cast<long long>(o.msk_kernel_size),
                static_cast<long long>(o.msk_num_feats), static_cast<long long>(o.msk_num_hidden_feats),
                static_cast<long long>(o.msk_num_layers), static_cast<long long>(o.msk_num_stacks),
                json::quote(o.msk_activate).c_str(), static_cast<long long>(m.num_parameters),
                static_cast<long long>(m.receptive_field), m.segment_seconds, static_cast<long long>(m.batch_size));
  s += buf;
  for (size_t i = 0; i < m.epochs.size(); ++i) {
    const EpochRecord& e = m.epochs[i];
    std::snprintf(buf, sizeof(buf),
                  "    {\"epoch\": %lld, \"train_si_snr\": %.6f, \"val_si_snri\": %.6f, \"lr\": %.6g, "
                  "\"seconds\": %.2f, \"segments_per_s\": %.2f}%s\n",
                  static_cast<long long>(e.epoch), e.train_si_snr, e.val_si_snri, e.lr, e.seconds, e.segments_per_s,
                  i + 1 < m.epochs.size() ? "," : "");
    s += buf;
  }
  s += "  ],\n";
  if (m.test_si_snri) {
    std::snprintf(buf, sizeof(buf), "  \"test_si_snri\": %.6f,\n  \"test_sdri\": %.6f,\n  \"test_mixtures\": %lld,\n",
                  *m.test_si_snri, m.test_sdri.value_or(0.0), static_cast<long long>(m.test_mixtures));
    s += buf;
  }
  std::snprintf(buf, sizeof(buf), "  \"total_seconds\": %.2f,\n", m.total_seconds);
  s += buf;
  s += "  \"checkpoint\": " + json::quote(m.checkpoint) + "\n}\n";
  std::ofstream f(path);
  f << s;
  EMBER_CHECK(f.good(), "ember-separate: cannot write '", path, "'");
}

}  // namespace ember::apps::separate_app
