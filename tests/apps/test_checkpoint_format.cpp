// CheckpointFormat (apps/common/checkpoint_format.h): the conventions the apps'
// checkpoints share, tested once here rather than through each app.
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <ember/core/generator.h>
#include <ember/nn/modules/linear.h>
#include <ember/ops/factories.h>
#include <ember/optim/sgd.h>
#include <ember/serialize/safetensors.h>

#include "../temp_dir.h"
#include "common/checkpoint_format.h"

namespace ember::apps {
namespace {

const CheckpointFormat kFormat("ember-demo", "ember-demo/1", "demo");

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CheckpointFormat, NumbersRowsAndStringsReadBackExactly) {
  Metadata meta = kFormat.new_metadata();
  EXPECT_EQ(meta.at("ember.checkpoint"), "ember-demo/1");
  const double third = 1.0 / 3.0;
  meta["demo.x"] = metadata_number(third);
  meta["demo.nan"] = metadata_number(NAN);
  meta["demo.seed"] = std::to_string(std::numeric_limits<uint64_t>::max());
  meta["demo.rows"] = json_number_rows({{1, third, NAN}, {2, -INFINITY, 0.1}});
  meta["demo.names"] = json_string_list({"a \"quoted\" name", "ü"});
  EXPECT_EQ(kFormat.number(meta, "demo.x", "f"), third);
  EXPECT_TRUE(std::isnan(kFormat.number(meta, "demo.nan", "f")));
  EXPECT_EQ(kFormat.unsigned_integer(meta, "demo.seed", "f"), std::numeric_limits<uint64_t>::max());
  const auto rows = kFormat.number_rows(meta, "demo.rows", "f", 3);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1], third);
  EXPECT_TRUE(std::isnan(rows[0][2]));
  EXPECT_TRUE(std::isnan(rows[1][1]));  // JSON has no infinity: non-finite values come back as NaN
  EXPECT_EQ(rows[1][2], 0.1);
  EXPECT_EQ(kFormat.string_list(meta, "demo.names", "f"), (std::vector<std::string>{"a \"quoted\" name", "ü"}));
}

TEST(CheckpointFormat, BadEntriesNameTheProgramFileAndKey) {
  Metadata meta = kFormat.new_metadata();
  meta["demo.half"] = "1.5";
  meta["demo.word"] = "seven";
  meta["demo.negative"] = "-1";
  meta["demo.rows"] = "[[1, 2], [3]]";
  EXPECT_NE(error_of([&] { kFormat.entry(meta, "demo.missing", "run/last.safetensors"); })
                .find("ember-demo: checkpoint 'run/last.safetensors' has no 'demo.missing' entry"),
            std::string::npos);
  EXPECT_NE(error_of([&] { kFormat.integer(meta, "demo.half", "f"); }).find("'demo.half' is not an integer: '1.5'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { kFormat.number(meta, "demo.word", "f"); }).find("'demo.word' is not a number: 'seven'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { kFormat.unsigned_integer(meta, "demo.negative", "f"); }).find("not an unsigned integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { kFormat.number_rows(meta, "demo.rows", "f", 2); }).find("entry is not 2 numbers"),
            std::string::npos);
}

TEST(CheckpointFormat, SavesAtomicallyAndRefusesOtherFormats) {
  const ember::testing::TempDir dir("checkpoint_format");
  const std::string path = (dir.path() / "last.safetensors").string();
  nn::Linear model(3, 2);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
  model(ones({4, 3})).sum().backward();
  optimizer.step();
  StateDict tensors = model->state_dict();
  Metadata meta = kFormat.new_metadata();
  kFormat.add_training_state(tensors, meta, &optimizer, nullptr);
  kFormat.save(path, tensors, meta);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));

  // The generator's state comes back with the optimizer's: draws after a resume
  // repeat the draws after the save.
  const Tensor expected = randn({5});
  Metadata loaded_meta;
  const StateDict loaded = kFormat.load(path, loaded_meta);
  EXPECT_EQ(kFormat.model_state(loaded).size(), 2u);  // weight and bias only
  randn({100});
  nn::Linear fresh(3, 2);
  optim::SGD resumed(fresh->parameters(), optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
  kFormat.restore_training_state(loaded, loaded_meta, resumed);
  EXPECT_TRUE(randn({5}).equal(expected));

  Metadata other;
  other["ember.checkpoint"] = "ember-other/1";
  ember::save(path, tensors, other);
  EXPECT_NE(error_of([&] { kFormat.load(path, loaded_meta); })
                .find("is not an ember-demo checkpoint (no \"ember.checkpoint\": \"ember-demo/1\" metadata; it is an "
                      "ember-other/1 checkpoint)"),
            std::string::npos);
}

}  // namespace
}  // namespace ember::apps
