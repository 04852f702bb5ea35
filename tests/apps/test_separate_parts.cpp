// ember-separate's parts: the random training segments, the batch collation,
// the output scaling against a float64 loop, the checkpoint round trip, and
// the data layouts' errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include <ember/core/error.h>
#include <ember/core/generator.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>
#include <ember/optim/adam.h>
#include <ember/serialize/safetensors.h>

#include "apps_test_util.h"
#include "separate/separate_checkpoint.h"
#include "separate/separate_files.h"
#include "separate/separation_data.h"

using namespace ember::apps::testing;
namespace app = ember::apps::separate_app;
namespace fs = std::filesystem;
using ember::Tensor;

namespace separate_parts_test {

// A mixture 0, 1, 2, ... of `frames` samples with sources 1000 + t and 2000 + t.
ember::datasets::SourceSeparationSample ramp_sample(int64_t frames) {
  ember::datasets::SourceSeparationSample s;
  s.sample_rate = 8000;
  s.mixture = ember::arange(frames).to(ember::kFloat32).reshape({1, frames});
  s.sources = {s.mixture + 1000, s.mixture + 2000};
  return s;
}

int64_t segment_start(const ember::datasets::SourceSeparationSample& s, int64_t frames, uint64_t seed) {
  ember::Generator g(seed);
  ember::GeneratorScope scope(g);
  const app::Segment seg = app::random_segment(s, frames);
  EXPECT_EQ(seg.mixture.sizes(), (std::vector<int64_t>{1, frames}));
  EXPECT_EQ(seg.sources.sizes(), (std::vector<int64_t>{2, frames}));
  EXPECT_TRUE(seg.mask.equal(ember::ones({1, frames})));
  const int64_t start = static_cast<int64_t>(seg.mixture[0][0].item<float>());
  // The mixture and both sources are cut at the same offset, contiguously.
  EXPECT_TRUE(seg.mixture.equal(s.mixture.slice(1, start, start + frames)));
  EXPECT_TRUE(seg.sources[0].equal(s.sources[0][0].slice(0, start, start + frames)));
  EXPECT_TRUE(seg.sources[1].equal(s.sources[1][0].slice(0, start, start + frames)));
  return start;
}

TEST(SeparateParts, RandomSegmentCutsAllSignalsAtOneDrawnOffset) {
  const auto s = ramp_sample(100);
  std::set<int64_t> starts;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    const int64_t start = segment_start(s, 30, seed);
    EXPECT_GE(start, 0);
    EXPECT_LE(start, 70);
    starts.insert(start);
    EXPECT_EQ(segment_start(s, 30, seed), start);  // the generator decides it
  }
  // Every offset is possible: 400 draws over the 71 cover nearly all (the
  // seeds are fixed, so this is not a flaky check).
  EXPECT_GE(starts.size(), 65u);
  // A mixture of exactly the segment's length is taken whole.
  EXPECT_EQ(segment_start(ramp_sample(30), 30, 5), 0);
}

TEST(SeparateParts, RandomSegmentPadsShortMixturesAndMasksThePadding) {
  const auto s = ramp_sample(20);
  const app::Segment seg = app::random_segment(s, 32);
  ASSERT_EQ(seg.mixture.sizes(), (std::vector<int64_t>{1, 32}));
  EXPECT_TRUE(seg.mixture.slice(1, 0, 20).equal(s.mixture));
  EXPECT_TRUE(seg.mixture.slice(1, 20, 32).equal(ember::zeros({1, 12})));
  EXPECT_TRUE(seg.sources.slice(1, 0, 20)[1].equal(s.sources[1][0]));
  EXPECT_TRUE(seg.sources.slice(1, 20, 32).equal(ember::zeros({2, 12})));
  EXPECT_TRUE(seg.mask.slice(1, 0, 20).equal(ember::ones({1, 20})));
  EXPECT_TRUE(seg.mask.slice(1, 20, 32).equal(ember::zeros({1, 12})));
}

TEST(SeparateParts, CollateStacksSegmentsAndRefusesStereo) {
  std::vector<app::Segment> segments;
  for (int i = 0; i < 3; ++i) segments.push_back(app::random_segment(ramp_sample(50), 40));
  const Tensor second = segments[1].sources.clone();
  const app::SegmentBatch b = app::collate_segments(std::move(segments));
  EXPECT_EQ(b.mixture.sizes(), (std::vector<int64_t>{3, 1, 40}));
  EXPECT_EQ(b.sources.sizes(), (std::vector<int64_t>{3, 2, 40}));
  EXPECT_EQ(b.mask.sizes(), (std::vector<int64_t>{3, 1, 40}));
  EXPECT_TRUE(b.sources[1].equal(second));
  EXPECT_THROW(app::collate_segments({}), ember::Error);

  auto stereo = ramp_sample(50);
  stereo.mixture = ember::cat({stereo.mixture, stereo.mixture}, 0);
  try {
    app::random_segment(stereo, 40);
    FAIL() << "a stereo mixture was accepted";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected mono mixtures"), std::string::npos) << e.what();
  }
  EXPECT_THROW(app::whole_mixture(stereo), ember::Error);
}

// Note [Output scale]: one factor for all sources, the least-squares fit of
// their sum to the mixture; checked against a float64 loop.
TEST(SeparateParts, MatchMixtureScaleFitsTheSumToTheMixture) {
  ember::manual_seed(11);
  const Tensor estimate = ember::randn({2, 3, 64});
  const Tensor mixture = ember::randn({2, 1, 64});
  const Tensor scaled = app::match_mixture_scale(estimate, mixture);
  ASSERT_EQ(scaled.sizes(), estimate.sizes());
  for (int64_t b = 0; b < 2; ++b) {
    double num = 0, den = 0;
    for (int64_t t = 0; t < 64; ++t) {
      double sum = 0;
      for (int64_t s = 0; s < 3; ++s) sum += estimate[b][s][t].item<double>();
      num += sum * mixture[b][0][t].item<double>();
      den += sum * sum;
    }
    const double alpha = num / den;
    for (int64_t s = 0; s < 3; ++s)
      for (int64_t t = 0; t < 64; t += 7)
        EXPECT_NEAR(scaled[b][s][t].item<double>(), alpha * estimate[b][s][t].item<double>(), 1e-5);
  }
  // Sources that already sum to the mixture keep their scale.
  const Tensor halves = ember::cat({mixture * 0.25, mixture * 0.75}, 1);
  EXPECT_TRUE(app::match_mixture_scale(halves, mixture).allclose(halves, 1e-5, 1e-6));
}

app::RunState sample_state() {
  app::RunState s;
  s.layout = "librimix";
  s.task = "sep_noisy";
  s.sample_rate = 8000;
  s.segment_seconds = 0.75;
  s.epochs = 5;
  s.epochs_done = 2;
  s.seed = 42;
  s.best_val = 3.25;
  s.history = {{1, -1.5, 0.5, 1e-3, 10.25, 30.5}, {2, 2.0, 3.25, 1e-3, 9.75, 31.0}};
  return s;
}

TEST(SeparateParts, CheckpointRoundTripRebuildsTheModel) {
  const std::string dir = fresh_dir("separate_ckpt");
  ember::manual_seed(3);
  ember::models::ConvTasNet model({.num_sources = 2, .enc_kernel_size = 8, .enc_num_feats = 16, .msk_num_feats = 8,
                                   .msk_num_hidden_feats = 16, .msk_num_layers = 2, .msk_num_stacks = 1,
                                   .msk_activate = "relu"});
  ember::optim::Adam adam(model->parameters(), {.lr = 2e-3});
  const Tensor mix = ember::randn({1, 1, 200});
  model->forward(mix).pow(2).mean().backward();
  adam.step();
  ember::optim::ReduceLROnPlateau plateau(adam, {.mode = "max", .factor = 0.5, .patience = 0});
  plateau.step(1.0);
  plateau.step(0.5);  // a bad epoch: the lr halves
  const std::string path = dir + "/c.safetensors";
  app::save_separate_checkpoint(path, *model, &adam, &plateau, sample_state());

  const app::SeparateCheckpoint c = app::load_separate_checkpoint(path);
  EXPECT_EQ(c.model.enc_kernel_size, 8);
  EXPECT_EQ(c.model.enc_num_feats, 16);
  EXPECT_EQ(c.model.msk_num_layers, 2);
  EXPECT_EQ(c.model.msk_activate, "relu");
  EXPECT_EQ(c.state.task, "sep_noisy");
  EXPECT_EQ(c.state.segment_seconds, 0.75);
  EXPECT_EQ(c.state.seed, 42u);
  EXPECT_EQ(c.state.epochs, 5);
  EXPECT_EQ(c.state.epochs_done, 2);
  ASSERT_EQ(c.state.history.size(), 2u);
  EXPECT_EQ(c.state.history[1].val_si_snri, 3.25);
  EXPECT_EQ(c.state.history[0].segments_per_s, 30.5);
  EXPECT_EQ(c.model_state.size(), model->state_dict().size());
  ember::models::ConvTasNet again = app::model_from_checkpoint(c);
  model->eval();
  again->eval();
  EXPECT_TRUE(again->forward(mix).equal(model->forward(mix)));

  ember::optim::Adam adam2(again->parameters(), {.lr = 1.0});
  ember::optim::ReduceLROnPlateau plateau2(adam2, {.mode = "max", .factor = 0.5, .patience = 0});
  app::restore_training_state(c, adam2, plateau2);
  EXPECT_EQ(adam2.param_groups()[0].options.at("lr").to_double(), 1e-3);
  EXPECT_EQ(plateau2.best(), 1.0);
  EXPECT_EQ(plateau2.num_bad_epochs(), 0);

  // Not an ember-separate checkpoint: named, with its own format.
  ember::Metadata meta;
  meta["ember.checkpoint"] = "ember-text/1";
  ember::save(dir + "/text.safetensors", ember::StateDict{{"w", ember::zeros({2})}}, meta);
  try {
    app::load_separate_checkpoint(dir + "/text.safetensors");
    FAIL() << "an ember-text checkpoint was accepted";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not an ember-separate checkpoint (no \"ember.checkpoint\": "
                                         "\"ember-separate/1\" metadata; it is an ember-text/1 checkpoint)"),
              std::string::npos)
        << e.what();
  }
}

TEST(SeparateParts, MissingSplitsNameTheExpectedFolders) {
  const std::string root = fresh_dir("separate_empty_root");
  app::SeparateConfig c;
  try {
    app::open_splits(c, root);
    FAIL() << "an empty root was accepted";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("LibriMix: dataset not found: expected " + root +
                                         "/Libri2Mix/wav8k/min/train-100/mix_clean/<id>.wav"),
              std::string::npos)
        << e.what();
  }
  c.layout = "wsj0mix";
  try {
    app::open_splits(c, root);
    FAIL() << "an empty root was accepted";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("WSJ0Mix: no files found in " + root + "/tr/mix"), std::string::npos)
        << e.what();
  }
  // A Libri2Mix tree whose test split has no mixtures.
  for (const char* split : {"train-100", "dev", "test"})
    fs::create_directories(fs::path(root) / "Libri2Mix/wav8k/min" / split / "mix_clean");
  c.layout = "librimix";
  try {
    app::open_splits(c, root);
    FAIL() << "empty splits were accepted";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("ember-separate: no mixtures in " + root +
                                         "/Libri2Mix/wav8k/min/train-100/mix_clean"),
              std::string::npos)
        << e.what();
  }
  c.layout = "timit";
  EXPECT_THROW(app::open_splits(c, root), ember::Error);
  c.layout = "librimix";
  c.num_speakers = 4;
  EXPECT_THROW(app::open_splits(c, root), ember::Error);
}

}  // namespace separate_parts_test
