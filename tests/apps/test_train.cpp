// ember-train's training code, driven directly: a short run on generated
// shapes reaches a stated accuracy, and a run resumed from its checkpoint ends
// with exactly the parameters of an uninterrupted one.
#include <gtest/gtest.h>

#include <algorithm>

#include <ember/ember.h>

#include "apps_test_util.h"
#include "common/checkpoint.h"
#include "train/trainer.h"

using namespace ember;
using namespace ember::apps;
using namespace ember::apps::testing;


// The stated accuracy of a short run: >= 45% (chance: 17%) on the 150
// held-out images after 4 epochs over 1,800 generated 32x32 images (6 classes,
// 224 steps; about 60% measured). scripts/train.sh's full run (8 epochs over
// 6,000 images) requires 95%.
TEST(TrainApp, ShortRunReachesStatedAccuracy) {
  const ShortRun& run = short_run();
  EXPECT_EQ(run.result.epochs_done, 4);
  EXPECT_GE(run.result.final_accuracy, 0.45);
  const Checkpoint ckpt = load_checkpoint(run.result.checkpoint);
  EXPECT_EQ(ckpt.info.model, "resnet18");
  std::vector<std::string> sorted = shape_classes();
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(ckpt.info.classes, sorted);  // ImageFolder's order: sorted folder names
  EXPECT_EQ(ckpt.info.epochs_done, 4);
  const auto out = std::filesystem::path(run.config.output);
  EXPECT_TRUE(std::filesystem::exists(out / "metrics.json"));
  EXPECT_TRUE(std::filesystem::exists(out / "best.safetensors"));
  const std::string metrics = slurp(out / "metrics.json");
  EXPECT_NE(metrics.find("\"best_val_accuracy\""), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\"epoch\": 4"), std::string::npos) << metrics;
}

// Two epochs in one go, and one epoch + a resumed second one, give the same
// model and optimizer state bit for bit (same batches, same augmentation draws,
// same schedule position, same generator state). Deterministic: other tests
// running beside this one may make the cores count as shared for one run and
// not the other (Note [OpenMP libraries]).
TEST(TrainApp, ResumeMatchesAnUninterruptedRun) {
  const std::string data = shapes_data(20);
  TrainConfig whole = small_run(data, fresh_dir("resume_whole"));
  whole.epochs = 2;
  whole.deterministic = true;
  const TrainResult a = train(whole);

  TrainConfig part = small_run(data, fresh_dir("resume_part"));
  part.epochs = 2;
  part.stop_after = 1;
  part.deterministic = true;
  const TrainResult first = train(part);
  EXPECT_EQ(first.epochs_done, 1);
  part.stop_after = 0;
  part.resume = first.checkpoint;
  const TrainResult b = train(part);
  EXPECT_EQ(b.epochs_done, 2);

  const Checkpoint ca = load_checkpoint(a.checkpoint), cb = load_checkpoint(b.checkpoint);
  ASSERT_EQ(ca.tensors.size(), cb.tensors.size());
  for (const auto& [key, tensor] : ca.tensors) {
    ASSERT_TRUE(cb.tensors.contains(key)) << key;
    EXPECT_TRUE(equal(tensor, cb.tensors.at(key))) << key;
  }
  EXPECT_EQ(ca.metadata.at("generator"), cb.metadata.at("generator"));
  EXPECT_EQ(ca.metadata.at("scheduler"), cb.metadata.at("scheduler"));
}

TEST(TrainApp, BadConfigurationsRaise) {
  const std::string data = shapes_data(20);
  TrainConfig c = small_run(data, fresh_dir("bad_config"));
  c.epochs = 1;
  c.model = "no_such_model";
  EXPECT_THROW(train(c), Error);
  c.model = "resnet18";
  c.optimizer = "adamax9";
  EXPECT_THROW(train(c), Error);
  c.optimizer = "sgd";
  c.data = "/nonexistent/data/root";
  EXPECT_THROW(train(c), Error);
  c.data = data;
  c.format = "tfrecord";
  EXPECT_THROW(train(c), Error);
}
