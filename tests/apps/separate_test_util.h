#pragma once
// Shared by ember-separate's tests: the default speech corpus, a small
// Libri2Mix / wsj0-mix tree cut from it (hard links), the seeded short run
// the quality and --separate tests share, and helpers for one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "apps_test_util.h"
#include "common/speech_corpus.h"
#include "separate/separate_config.h"
#include "separate/separate_trainer.h"

namespace ember::apps::testing {

namespace separate_test {

namespace fs = std::filesystem;
namespace app = separate_app;
using ember::apps::default_speech_corpus;

inline const std::string kSeparate = EMBER_SEPARATE_BIN;

// The default corpus's Libri2Mix split folder (wav8k/min/<split>).
inline fs::path librimix_split(const std::string& split) {
  return fs::path(default_speech_corpus()) / "Libri2Mix" / "wav8k" / "min" / split;
}

// The first `count` mixtures of a split of the default corpus, in sorted order.
inline std::vector<std::string> first_ids(const std::string& split, size_t count) {
  std::vector<std::string> ids;
  for (const auto& e : fs::directory_iterator(librimix_split(split) / "mix_clean"))
    ids.push_back(e.path().stem().string());
  std::sort(ids.begin(), ids.end());
  ids.resize(std::min(ids.size(), count));
  return ids;
}

// A small corpus in both layouts, linked to the default corpus's files:
// ROOT/Libri2Mix/wav8k/min/{train-100,dev,test}/{mix_clean,mix_both,s1,s2}
// and ROOT/wsj0-mix/{tr,cv,tt}/{mix,s1,s2}, with `train` training and
// `heldout` dev and test mixtures.
inline std::string small_corpus(size_t train, size_t heldout) {
  const fs::path root = temp_root() / ("small_mix_" + std::to_string(train) + "_" + std::to_string(heldout));
  if (fs::exists(root / "done")) return root.string();
  const std::pair<std::string, std::string> splits[] = {{"train-100", "tr"}, {"dev", "cv"}, {"test", "tt"}};
  for (const auto& [split, wsj] : splits) {
    for (const std::string& id : first_ids(split, split == "train-100" ? train : heldout)) {
      for (const char* kind : {"mix_clean", "mix_both", "s1", "s2"}) {
        const fs::path to = root / "Libri2Mix" / "wav8k" / "min" / split / kind;
        fs::create_directories(to);
        fs::create_hard_link(librimix_split(split) / kind / (id + ".wav"), to / (id + ".wav"));
      }
      for (const auto& [kind, to_kind] : {std::pair{"mix_clean", "mix"}, {"s1", "s1"}, {"s2", "s2"}}) {
        const fs::path to = root / "wsj0-mix" / wsj / to_kind;
        fs::create_directories(to);
        fs::create_hard_link(librimix_split(split) / kind / (id + ".wav"), to / (id + ".wav"));
      }
    }
  }
  std::ofstream(root / "done") << "ok\n";
  return root.string();
}

// A run on one thread with deterministic algorithms: bitwise repeatable, and
// its speed does not depend on what else shares the cores.
inline app::SeparateConfig base_config(const std::string& data, const std::string& output) {
  app::SeparateConfig c;
  c.data = data;
  c.output = output;
  c.progress = false;
  c.threads = 1;
  c.deterministic = true;
  c.workers = 0;
  return c;
}

// The smallest model that learns: N 32, B 32, H 64, X 4, R 1.
inline void tiny_model(app::SeparateConfig& c) {
  c.model.enc_num_feats = 32;
  c.model.msk_num_feats = 32;
  c.model.msk_num_hidden_feats = 64;
  c.model.msk_num_layers = 4;
  c.model.msk_num_stacks = 1;
}

// One error line on stderr that contains `what`, and the exit code.
inline void expect_one_error_line(const RunResult& r, int code, const std::string& what) {
  EXPECT_EQ(r.exit_code, code) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("ember-separate: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("ember-separate: ember-separate:"), std::string::npos) << r.err;
}

}  // namespace separate_test

}  // namespace ember::apps::testing
