// ember-train under ember-run (issue 25): the same global batch on 1 and 2
// ranks trains the same parameters, and a rank killed in epoch 2 under
// --max-restarts 1 resumes from the checkpoint and ends with the parameters of
// an uninterrupted run. Every run is the real programs: ember-run starting
// ember-train workers that join a Gloo group over loopback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <ember/ember.h>

#include "apps_test_util.h"
#include "common/checkpoint.h"

namespace ember::apps::testing {
namespace {

// A short data-parallel run: 96 training images (16 per class), global batch
// 16 (6 steps per epoch), SGD, one intra-op thread and deterministic kernels so
// that reruns are bitwise equal.
std::string train_command(int64_t ranks, const std::string& data, const std::string& output, int64_t epochs,
                          const std::string& log_dir, const std::string& launcher_flags = "",
                          const std::string& optimization = "--lr 0.01") {
  return std::string(EMBER_RUN_BIN) + " --nproc-per-node " + std::to_string(ranks) + " --log-dir " + log_dir + " " +
         launcher_flags + " " + EMBER_TRAIN_BIN + " --data " + data + " --output " + output +
         " --image-size 32 --epochs " + std::to_string(epochs) +
         " --batch-size 16 --optimizer sgd " + optimization + " --workers 1 --threads 1 --deterministic --no-progress";
}

// The largest |a - b| over the model's tensors of two checkpoints.
double max_model_difference(const Checkpoint& a, const Checkpoint& b) {
  EXPECT_EQ(a.model_state.size(), b.model_state.size());
  double worst = 0;
  for (const auto& [key, ta] : a.model_state) {
    if (!b.model_state.contains(key)) {
      ADD_FAILURE() << key << " missing";
      continue;
    }
    const Tensor tb = b.model_state.at(key);
    const double d = (ta.to(kFloat64) - tb.to(kFloat64)).abs().max().item<double>();
    if (d > worst) std::printf("  %s differs by %.3g\n", key.c_str(), d);
    worst = std::max(worst, d);
  }
  return worst;
}

// With the learning rate at 0 the run only moves the batch norms' running
// statistics, which depend on which images form each global batch: 1 and 2
// ranks agree to float rounding (measured: up to 6.6e-7), so the DistributedSampler
// split, the per-index augmentation and SyncBatchNorm give 2 ranks the global
// batches of 1. Rank 0 alone logs.
TEST(TrainDistributed, TwoRanksSeeTheGlobalBatchesOfOneRank) {
  const std::string data = shapes_data(16);
  const std::string one = fresh_dir("ddp_one"), two = fresh_dir("ddp_two");
  const std::string frozen = "--lr 0 --scheduler none --weight-decay 0";
  const RunResult r1 = run(train_command(1, data, one, 1, fresh_dir("ddp_one_logs"), "", frozen));
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const std::string logs2 = fresh_dir("ddp_two_logs");
  const RunResult r2 = run(train_command(2, data, two, 1, logs2, "", frozen));
  ASSERT_EQ(r2.exit_code, 0) << r2.err << slurp(logs2 + "/round_0/rank_0.log") << slurp(logs2 + "/round_0/rank_1.log");

  const std::string log0 = slurp(logs2 + "/round_0/rank_0.log"), log1 = slurp(logs2 + "/round_0/rank_1.log");
  EXPECT_NE(log0.find("distributed: 2 ranks (Gloo), 8 images per rank and step"), std::string::npos) << log0;
  EXPECT_NE(log0.find("epoch 1/1"), std::string::npos) << log0;
  EXPECT_EQ(log1.find("epoch"), std::string::npos) << log1;

  const Checkpoint c1 = load_checkpoint(one + "/checkpoint.safetensors");
  const Checkpoint c2 = load_checkpoint(two + "/checkpoint.safetensors");
  EXPECT_EQ(c2.info.epochs_done, 1);
  const double diff = max_model_difference(c1, c2);
  std::printf("largest difference between 1 and 2 ranks: %.3g\n", diff);
  EXPECT_LT(diff, 1e-5);
  // Validation is counted over all ranks: the same validation images, the same accuracy.
  EXPECT_NEAR(c1.info.best_accuracy, c2.info.best_accuracy, 1e-9);
}

// With a learning rate, 1 and 2 ranks train the same parameters in float64
// (issue 25: "with a fixed seed and float64 the same parameters after 3
// steps"); here 6 steps. In float32 they agree after the first step (momentum
// buffers within 3e-6 of 3.0) and then drift apart, as a single-rank run whose
// learning rate changes by 1e-4 of itself does, and as PyTorch's ResNet-18 does
// on images with flat backgrounds (docs/apps.md, "Data-parallel ember-train").
TEST(TrainDistributed, TwoRanksTrainTheParametersOfOneRankInFloat64) {
  const std::string data = shapes_data(16);
  const std::string one = fresh_dir("ddp_one_f64"), two = fresh_dir("ddp_two_f64");
  const std::string optimization = "--lr 0.01 --float64";
  const RunResult r1 = run(train_command(1, data, one, 1, fresh_dir("ddp_one_f64_logs"), "", optimization));
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const RunResult r2 = run(train_command(2, data, two, 1, fresh_dir("ddp_two_f64_logs"), "", optimization));
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const double diff = max_model_difference(load_checkpoint(one + "/checkpoint.safetensors"),
                                           load_checkpoint(two + "/checkpoint.safetensors"));
  std::printf("largest difference between 1 and 2 ranks in float64: %.3g\n", diff);
  EXPECT_LT(diff, 1e-9);
}

TEST(TrainDistributed, KilledRankResumesFromTheCheckpoint) {
  const std::string data = shapes_data(16);
  const std::string whole = fresh_dir("ddp_whole"), faulted = fresh_dir("ddp_faulted");
  const RunResult a = run(train_command(2, data, whole, 3, fresh_dir("ddp_whole_logs")));
  ASSERT_EQ(a.exit_code, 0) << a.err;

  // Rank 1 kills itself (SIGKILL) after its first step of epoch 2, in round 0 only.
  const std::string logs = fresh_dir("ddp_faulted_logs");
  const RunResult b = run("EMBER_TRAIN_KILL=1:2 " + train_command(2, data, faulted, 3, logs, "--max-restarts 1"));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.err.find("round 1"), std::string::npos) << b.err;  // the group was restarted once
  const std::string round1 = slurp(logs + "/round_1/rank_0.log");
  EXPECT_NE(round1.find("after epoch 1"), std::string::npos) << round1;  // resumed from epoch 1's checkpoint
  EXPECT_EQ(round1.find("epoch 1/3"), std::string::npos) << round1;

  const Checkpoint ca = load_checkpoint(whole + "/checkpoint.safetensors");
  const Checkpoint cb = load_checkpoint(faulted + "/checkpoint.safetensors");
  EXPECT_EQ(cb.info.epochs_done, 3);
  ASSERT_EQ(ca.tensors.size(), cb.tensors.size());
  for (const auto& [key, tensor] : ca.tensors) {
    ASSERT_TRUE(cb.tensors.contains(key)) << key;
    EXPECT_TRUE(equal(tensor, cb.tensors.at(key))) << key;  // bit for bit, optimizer state included
  }
  EXPECT_EQ(ca.metadata.at("scheduler"), cb.metadata.at("scheduler"));
}

}  // namespace
}  // namespace ember::apps::testing
