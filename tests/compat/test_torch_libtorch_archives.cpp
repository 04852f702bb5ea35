// libtorch's own archive formats through <ember/torch.h>: torch::save of a
// module, an optimizer, a tensor and a tensor list writes what libtorch's
// torch::save writes, and torch::load reads what libtorch wrote.
//  - TorchLibtorchArchives.*: the committed files a libtorch program wrote
//    (tests/data/core/torch_compat_libtorch/, scripts/fixtures/torch_compat_libtorch.py,
//    from tests/compat/libtorch/libtorch_exchange.cpp) loaded and checked against
//    Ember's run of the same recipes (libtorch_exchange_recipes.h); round trips;
//    errors.
//  - LibtorchExchange.*: the two Ember halves of the ctest compat.libtorch_exchange
//    (tests/compat/libtorch_exchange.sh; only when libtorch-dev is found): Ember
//    writes, the libtorch program checks and writes, Ember checks. Skipped unless
//    EMBER_LIBTORCH_EXCHANGE_DIR is set.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compat/compat_test_util.h"
#include "compat/libtorch_exchange_recipes.h"
#include "npy.h"
#include "ember/serialize/torch_load.h"

namespace {

::testing::AssertionResult params_close(exchange::Net& a, exchange::Net& b, double rtol, double atol) {
  auto pa = a->parameters(), pb = b->parameters();
  if (pa.size() != pb.size()) return ::testing::AssertionFailure() << pa.size() << " vs " << pb.size() << " parameters";
  for (size_t i = 0; i < pa.size(); ++i)
    if (!torch::allclose(pa[i], pb[i], rtol, atol))
      return ::testing::AssertionFailure() << "parameter " << i << ": " << pa[i] << " vs " << pb[i];
  return ::testing::AssertionSuccess();
}

// Ember's side of the exchange: the files libtorch wrote with prefix `p`,
// checked against Ember's own run of the recipes.
void check_libtorch_files(const std::string& p) {
  exchange::Net init;
  torch::load(init, p + "init_net.pt");
  exchange::Net expected_init = exchange::make_net(1.0);
  EXPECT_TRUE(params_close(init, expected_init, 0, 0));

  for (const std::string& name : exchange::optimizer_names()) {
    SCOPED_TRACE(name);
    exchange::Net own = exchange::make_net();
    auto own_optimizer = exchange::make_optimizer(name, own);
    exchange::train(own, *own_optimizer, 3);
    const exchange::Tolerance tol = exchange::tolerance(name);
    exchange::Net loaded = exchange::make_net();
    torch::load(loaded, p + name + "_net.pt");
    auto loaded_optimizer = exchange::make_optimizer(name, loaded);
    torch::load(*loaded_optimizer, p + name + ".pt");
    // libtorch's 3 steps are Ember's 3 steps ...
    EXPECT_TRUE(params_close(loaded, own, tol.rtol, tol.atol));
    EXPECT_EQ(loaded_optimizer->state_size(), own_optimizer->state_size());
    // ... and its state carries on as Ember's own.
    exchange::train(own, *own_optimizer, 2);
    exchange::train(loaded, *loaded_optimizer, 2);
    EXPECT_TRUE(params_close(loaded, own, tol.rtol, tol.atol));
  }

  torch::Tensor t;
  torch::load(t, p + "tensor.pt");
  EXPECT_EQ(t.dtype(), torch::kFloat64);
  EXPECT_TRUE(torch::equal(t, exchange::single_tensor()));
  std::vector<torch::Tensor> list;
  torch::load(list, p + "tensors.pt");
  const std::vector<torch::Tensor> expected = exchange::tensor_list();
  ASSERT_EQ(list.size(), expected.size());
  for (size_t i = 0; i < list.size(); ++i) {
    EXPECT_EQ(list[i].dtype(), expected[i].dtype()) << i;
    EXPECT_TRUE(torch::equal(list[i], expected[i])) << i;
  }

  std::ifstream custom(p + "custom.pt", std::ios::binary);
  torch::serialize::InputArchive archive;
  archive.load_from(custom);
  EXPECT_EQ(exchange::check_custom_archive(archive), "");
  std::ifstream stream_tensors(p + "stream_tensors.pt", std::ios::binary);
  std::vector<torch::Tensor> streamed;
  torch::load(streamed, stream_tensors);
  ASSERT_EQ(streamed.size(), expected.size());
  for (size_t i = 0; i < streamed.size(); ++i) {
    EXPECT_EQ(streamed[i].dtype(), expected[i].dtype()) << i;
    EXPECT_TRUE(torch::equal(streamed[i], expected[i])) << i;
  }

  for (const std::string& name : exchange::sampler_names()) {
    SCOPED_TRACE(name);
    auto sampler = exchange::make_sampler(name, /*fresh=*/true);
    torch::load(*sampler, p + "sampler_" + name + ".pt");
    torch::Tensor rest;
    torch::load(rest, p + "sampler_" + name + "_rest.pt");
    EXPECT_TRUE(torch::equal(exchange::drain(*sampler), rest)) << rest;
  }
  torch::data::samplers::StreamSampler stream_sampler(10);
  torch::load(stream_sampler, p + "sampler_stream.pt");
  EXPECT_EQ(stream_sampler.next(10)->size(), 6u);  // 4 of 10 were retrieved
}

// What libtorch_exchange.cpp's write() writes, from Ember.
void write_ember_files(const std::string& p) {
  torch::save(exchange::make_net(1.0), p + "init_net.pt");
  for (const std::string& name : exchange::optimizer_names()) {
    exchange::Net net = exchange::make_net();
    auto optimizer = exchange::make_optimizer(name, net);
    exchange::train(net, *optimizer, 3);
    torch::save(net, p + name + "_net.pt");
    torch::save(*optimizer, p + name + ".pt");
  }
  torch::save(exchange::single_tensor(), p + "tensor.pt");
  torch::save(exchange::tensor_list(), p + "tensors.pt");
  std::ofstream custom(p + "custom.pt", std::ios::binary);
  torch::serialize::OutputArchive archive;
  exchange::write_custom_archive(archive);
  archive.save_to(custom);
  std::ofstream stream_tensors(p + "stream_tensors.pt", std::ios::binary);
  torch::save(exchange::tensor_list(), stream_tensors);
  for (const std::string& name : exchange::sampler_names()) {
    auto sampler = exchange::make_sampler(name);
    sampler->next(3);
    torch::save(*sampler, p + "sampler_" + name + ".pt");
    torch::save(exchange::drain(*sampler), p + "sampler_" + name + "_rest.pt");
  }
  torch::data::samplers::StreamSampler stream_sampler(10);
  stream_sampler.next(4);
  torch::save(stream_sampler, p + "sampler_stream.pt");
}

std::string exchange_dir() {
  const char* dir = std::getenv("EMBER_LIBTORCH_EXCHANGE_DIR");
  return dir == nullptr ? "" : dir;
}

}  // namespace

TEST(TorchLibtorchArchives, ReadsWhatLibtorchWrote) {
  check_libtorch_files(ember::testing::fixture_path("core/torch_compat_libtorch/libtorch_"));
}

// Ember's files read back by Ember: the same checks as libtorch's files pass.
TEST(TorchLibtorchArchives, EmberArchivesRoundTrip) {
  const std::string dir = ::testing::TempDir() + "torch_libtorch_archives_rt";
  std::filesystem::create_directories(dir);
  write_ember_files(dir + "/ember_");
  check_libtorch_files(dir + "/ember_");
  std::filesystem::remove_all(dir);
}

// The archives are libtorch's layout: classes, attribute names and types as
// libtorch's own files have them (the state keys are TensorImpl addresses).
TEST(TorchLibtorchArchives, OptimizerArchiveLayoutIsLibtorchs) {
  const std::string dir = ::testing::TempDir() + "torch_libtorch_archives_layout";
  std::filesystem::create_directories(dir);
  exchange::Net net = exchange::make_net();
  auto adam = exchange::make_optimizer("adam", net);
  exchange::train(net, *adam, 3);
  torch::save(*adam, dir + "/adam.pt");
  bool script = false;
  const ember::IValue mine = ember::serialize::load_torch(dir + "/adam.pt", &script);
  EXPECT_TRUE(script);
  const ember::IValue theirs =
      ember::serialize::load_torch(ember::testing::fixture_path("core/torch_compat_libtorch/libtorch_adam.pt"));
  EXPECT_EQ(mine.at("pytorch_version"), theirs.at("pytorch_version"));
  const ember::IValue& g_mine = mine.at("param_groups").at("param_groups/0");
  const ember::IValue& g_theirs = theirs.at("param_groups").at("param_groups/0");
  EXPECT_EQ(mine.at("param_groups").at("param_groups/size"), theirs.at("param_groups").at("param_groups/size"));
  EXPECT_EQ(g_mine.at("params/size"), g_theirs.at("params/size"));
  EXPECT_EQ(g_mine.at("options"), g_theirs.at("options"));  // lr, betas (a tuple), eps, weight_decay, amsgrad
  ASSERT_EQ(mine.at("state").to_dict().size(), theirs.at("state").to_dict().size());
  for (int64_t j = 0; j < 4; ++j) {
    const std::string key = "params/" + std::to_string(j);
    const ember::IValue& s_mine = mine.at("state").at(g_mine.at(key).to_string());
    const ember::IValue& s_theirs = theirs.at("state").at(g_theirs.at(key).to_string());
    EXPECT_EQ(s_mine.at("step"), s_theirs.at("step"));  // an int: 3
    for (const char* k : {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"})
      EXPECT_TRUE(torch::allclose(s_mine.at(k).to_tensor(), s_theirs.at(k).to_tensor(), 1e-5, 1e-7)) << k;
  }
  std::filesystem::remove_all(dir);
}

TEST(TorchLibtorchArchives, RefusesMismatches) {
  const std::string p = ember::testing::fixture_path("core/torch_compat_libtorch/libtorch_");
  exchange::Net net = exchange::make_net();
  // An Adam archive is not an SGD's: libtorch's options lack "momentum".
  auto sgd = exchange::make_optimizer("sgd", net);
  EXPECT_ERROR_WITH(torch::load(*sgd, p + "adam.pt"), "adam.pt", "'momentum'");
  // A different number of parameters.
  torch::nn::Linear lin(3, 4);
  torch::optim::Adam adam(lin->parameters(), torch::optim::AdamOptions(0.1));
  EXPECT_ERROR_WITH(torch::load(adam, p + "adam.pt"), "adam.pt", "has 4 parameters in the archive but 2");
  // A module archive holds no tensor "0"; a tensor archive is no optimizer's.
  torch::Tensor t;
  EXPECT_ERROR_WITH(torch::load(t, p + "init_net.pt"), "init_net.pt", "no tensor attribute '0'");
  EXPECT_ERROR_WITH(torch::load(*sgd, p + "tensor.pt"), "tensor.pt", "pytorch_version");
  // libtorch 1.13 has no Adadelta, hence no archive format for it.
  torch::optim::Adadelta adadelta(net->parameters());
  EXPECT_ERROR_WITH(torch::save(adadelta, ::testing::TempDir() + "adadelta.pt"), "Adadelta");
  // A SequentialSampler's archive holds no permutation for a RandomSampler.
  torch::data::samplers::RandomSampler random(5);
  EXPECT_ERROR_WITH(torch::load(random, p + "sampler_sequential.pt"), "No such serialized tensor 'indices'");
  // Rank 0's sampler cannot take rank 1's position.
  torch::data::samplers::DistributedSequentialSampler rank0(11, 2, 0);
  EXPECT_ERROR_WITH(torch::load(rank0, p + "sampler_distributed_sequential.pt"), "sample_index_ 9",
                    "outside this rank's range [0, 6]");
  // A sampler of one's own saves only when it overrides save.
  struct OwnSampler : torch::data::samplers::Sampler<> {
    void reset(std::optional<size_t>) override {}
    std::optional<std::vector<size_t>> next(size_t) override { return std::nullopt; }
  } own;
  EXPECT_ERROR_WITH(torch::save(own, ::testing::TempDir() + "own_sampler.pt"), "does not override save");
}

TEST(LibtorchExchange, WriteForLibtorch) {
  const std::string dir = exchange_dir();
  if (dir.empty()) GTEST_SKIP() << "EMBER_LIBTORCH_EXCHANGE_DIR is not set (the ctest compat.libtorch_exchange sets it)";
  write_ember_files(dir + "/ember_");
}

TEST(LibtorchExchange, ReadFromLibtorch) {
  const std::string dir = exchange_dir();
  if (dir.empty()) GTEST_SKIP() << "EMBER_LIBTORCH_EXCHANGE_DIR is not set (the ctest compat.libtorch_exchange sets it)";
  check_libtorch_files(dir + "/libtorch_");
}

// torch::save / torch::load through in-memory streams: a module, an optimizer
// (LBFGS, whose state has lists of tensors) and an OutputArchive with nested
// archives, as a libtorch program spells them.
TEST(TorchSerializeStreams, ModuleOptimizerAndArchiveThroughStringstreams) {
  exchange::Net net = exchange::make_net();
  auto lbfgs = exchange::make_optimizer("lbfgs", net);
  exchange::train(net, *lbfgs, 3);
  std::stringstream net_stream, optimizer_stream;
  torch::save(net, net_stream);
  torch::save(*lbfgs, optimizer_stream);

  exchange::Net loaded = exchange::make_net(2.0);
  auto loaded_lbfgs = exchange::make_optimizer("lbfgs", loaded);
  torch::load(loaded, net_stream);
  torch::load(*loaded_lbfgs, optimizer_stream);
  EXPECT_TRUE(params_close(loaded, net, 0, 0));
  // The LBFGS history (directions, steps, curvature) carried over: two more
  // steps from the loaded state are the original's two more steps. Not bit
  // for bit: Ember keeps H_diag, ro and al as doubles, and libtorch's archive
  // holds them as 0-dim tensors of the parameters' dtype (float32 here).
  exchange::train(net, *lbfgs, 2);
  exchange::train(loaded, *loaded_lbfgs, 2);
  EXPECT_TRUE(params_close(loaded, net, 1e-5, 1e-6));


  std::stringstream archive_stream;
  torch::serialize::OutputArchive out;
  exchange::write_custom_archive(out);
  out.save_to(archive_stream);
  torch::serialize::InputArchive in;
  in.load_from(archive_stream);
  EXPECT_EQ(exchange::check_custom_archive(in), "");
  // A missing key names its path, as libtorch's c10::Error does.
  torch::serialize::InputArchive child;
  in.read("child", child);
  torch::Tensor t;
  EXPECT_ERROR_WITH(child.read("nothing", t), "No such serialized tensor 'child.nothing'");
  torch::serialize::InputArchive nested;
  EXPECT_ERROR_WITH(in.read("weights", nested), "No such serialized submodule: 'weights'");
  // A writer function gets the same bytes as the stream.
  std::string written;
  torch::save(exchange::single_tensor(), [&](const void* data, size_t n) {
    written.append(static_cast<const char*>(data), n);
    return n;
  });
  torch::Tensor back;
  torch::load(back, written.data(), written.size());
  EXPECT_TRUE(torch::equal(back, exchange::single_tensor()));
}
