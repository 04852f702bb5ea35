// pytorch/examples cpp/dcgan, written against <ember/torch.h> in libtorch's
// idiom (a TORCH_MODULE generator of transposed convolutions and batch norms,
// a Sequential discriminator, two Adams, torch::save / torch::load of models
// and optimizers), scaled down to run in seconds: the networks keep the
// example's layers and shapes (noise -> 4 -> 7 -> 14 -> 28 pixels) with fewer
// channels.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compat/compat_test_util.h"
#include "compat/idx_writer.h"
#include "temp_dir.h"

using namespace torch;

namespace {

// The number of channels of the example divided by this.
const int64_t kShrink = 8;
const int64_t kNoiseSize = 16;
const int64_t kBatchSize = 16;

struct DCGANGeneratorImpl : nn::Module {
  DCGANGeneratorImpl(int kNoiseSize)
      : conv1(nn::ConvTranspose2dOptions(kNoiseSize, 256 / kShrink, 4).bias(false)),
        batch_norm1(256 / kShrink),
        conv2(nn::ConvTranspose2dOptions(256 / kShrink, 128 / kShrink, 3).stride(2).padding(1).bias(false)),
        batch_norm2(128 / kShrink),
        conv3(nn::ConvTranspose2dOptions(128 / kShrink, 64 / kShrink, 4).stride(2).padding(1).bias(false)),
        batch_norm3(64 / kShrink),
        conv4(nn::ConvTranspose2dOptions(64 / kShrink, 1, 4).stride(2).padding(1).bias(false)) {
    // register_module() is needed if we want to use the parameters() method later on
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    x = torch::relu(batch_norm2(conv2(x)));
    x = torch::relu(batch_norm3(conv3(x)));
    x = torch::tanh(conv4(x));
    return x;
  }

  nn::ConvTranspose2d conv1;
  nn::BatchNorm2d batch_norm1;
  nn::ConvTranspose2d conv2;
  nn::BatchNorm2d batch_norm2;
  nn::ConvTranspose2d conv3;
  nn::BatchNorm2d batch_norm3;
  nn::ConvTranspose2d conv4;
};

TORCH_MODULE(DCGANGenerator);

nn::Sequential make_discriminator() {
  return nn::Sequential(
      // Layer 1
      nn::Conv2d(nn::Conv2dOptions(1, 64 / kShrink, 4).stride(2).padding(1).bias(false)),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 2
      nn::Conv2d(nn::Conv2dOptions(64 / kShrink, 128 / kShrink, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(128 / kShrink), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 3
      nn::Conv2d(nn::Conv2dOptions(128 / kShrink, 256 / kShrink, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(256 / kShrink), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 4
      nn::Conv2d(nn::Conv2dOptions(256 / kShrink, 1, 3).stride(1).padding(0).bias(false)), nn::Sigmoid());
}

// A module's parameters and buffers, copied.
torch::OrderedDict<torch::Tensor> snapshot(const nn::Module& module) {
  torch::OrderedDict<torch::Tensor> out;
  for (const auto& [name, value] : module.state_dict()) out.insert(name, value.clone());
  return out;
}

bool same_values(const torch::OrderedDict<torch::Tensor>& sa, const torch::OrderedDict<torch::Tensor>& sb) {
  if (sa.size() != sb.size()) return false;
  for (size_t i = 0; i < sa.size(); ++i)
    if (sa.item(i).first != sb.item(i).first || !torch::equal(sa.item(i).second, sb.item(i).second)) return false;
  return true;
}

}  // namespace

TEST(TorchDcgan, AdversarialStepsAndCheckpoints) {
  ember::testing::TempDir dir("torch_dcgan");
  ember_test::write_mnist_split(dir.path().string(), "train", ember_test::draw_digits(64, 11));
  torch::manual_seed(1);
  torch::Device device(torch::kCPU);

  DCGANGenerator generator(kNoiseSize);
  generator->to(device);
  nn::Sequential discriminator = make_discriminator();
  discriminator->to(device);

  // The example's shapes: noise [N, kNoiseSize, 1, 1] -> images [N, 1, 28, 28] -> one probability each.
  torch::Tensor probe = generator->forward(torch::randn({2, kNoiseSize, 1, 1}, device));
  ASSERT_EQ(probe.sizes().vec(), (std::vector<int64_t>{2, 1, 28, 28}));
  EXPECT_LE(probe.abs().max().item<float>(), 1.0f);
  ASSERT_EQ(discriminator->forward(probe).sizes().vec(), (std::vector<int64_t>{2, 1, 1, 1}));

  // Assume the MNIST dataset is available under `kDataFolder`;
  auto dataset = torch::data::datasets::MNIST(dir.path().string())
                     .map(torch::data::transforms::Normalize<>(0.5, 0.5))
                     .map(torch::data::transforms::Stack<>());
  const int64_t batches_per_epoch = std::ceil(dataset.size().value() / static_cast<double>(kBatchSize));
  auto data_loader = torch::data::make_data_loader(std::move(dataset),
                                                   torch::data::DataLoaderOptions().batch_size(kBatchSize).workers(2));

  torch::optim::Adam generator_optimizer(generator->parameters(),
                                         torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));
  torch::optim::Adam discriminator_optimizer(discriminator->parameters(),
                                             torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));

  const DCGANGenerator generator_before(kNoiseSize);
  torch::save(generator, dir / "generator-initial.pt");

  int64_t batch_index = 0;
  double first_d_loss = 0, last_d_loss = 0;
  for (int64_t epoch = 1; epoch <= 6; ++epoch) {
    for (torch::data::Example<>& batch : *data_loader) {
      // Train discriminator with real images.
      discriminator->zero_grad();
      torch::Tensor real_images = batch.data.to(device);
      torch::Tensor real_labels = torch::empty(batch.data.size(0), device).uniform_(0.8, 1.0);
      torch::Tensor real_output = discriminator->forward(real_images).reshape(real_labels.sizes());
      torch::Tensor d_loss_real = torch::binary_cross_entropy(real_output, real_labels);
      d_loss_real.backward();

      // Train discriminator with fake images.
      torch::Tensor noise = torch::randn({batch.data.size(0), kNoiseSize, 1, 1}, device);
      torch::Tensor fake_images = generator->forward(noise);
      torch::Tensor fake_labels = torch::zeros(batch.data.size(0), device);
      torch::Tensor fake_output = discriminator->forward(fake_images.detach()).reshape(fake_labels.sizes());
      torch::Tensor d_loss_fake = torch::binary_cross_entropy(fake_output, fake_labels);
      d_loss_fake.backward();

      torch::Tensor d_loss = d_loss_real + d_loss_fake;
      discriminator_optimizer.step();

      // Train generator.
      generator->zero_grad();
      fake_labels.fill_(1);
      fake_output = discriminator->forward(fake_images).reshape(fake_labels.sizes());
      torch::Tensor g_loss = torch::binary_cross_entropy(fake_output, fake_labels);
      g_loss.backward();
      generator_optimizer.step();

      ASSERT_TRUE(std::isfinite(d_loss.item<float>()) && std::isfinite(g_loss.item<float>()));
      if (batch_index == 0) first_d_loss = d_loss.item<float>();
      last_d_loss = d_loss.item<float>();
      ++batch_index;
    }
  }
  EXPECT_EQ(batch_index, 6 * batches_per_epoch);
  // The discriminator learns to tell the real digits from the generator's
  // output: its loss falls from about 2 ln 2 (a coin toss).
  SCOPED_TRACE(torch::str("discriminator loss ", first_d_loss, " -> ", last_d_loss));
  EXPECT_GT(first_d_loss, 1.0);
  EXPECT_LT(last_d_loss, 0.8 * first_d_loss);

  // Checkpoints in libtorch's argument order.
  torch::save(generator, dir / "generator-checkpoint.pt");
  // (Generating samples below updates the batch norms' running statistics.)
  const auto checkpointed = snapshot(*generator);
  torch::save(generator_optimizer, dir / "generator-optimizer-checkpoint.pt");
  torch::save(discriminator, dir / "discriminator-checkpoint.pt");
  torch::Tensor samples = generator->forward(torch::randn({8, kNoiseSize, 1, 1}, device));
  torch::save((samples + 1.0) / 2.0, torch::str(dir / "dcgan-sample-", 1, ".pt"));

  DCGANGenerator restored(kNoiseSize);
  EXPECT_FALSE(same_values(snapshot(*restored), checkpointed));
  torch::load(restored, dir / "generator-checkpoint.pt");
  EXPECT_TRUE(same_values(snapshot(*restored), checkpointed));
  torch::load(restored, dir / "generator-initial.pt");
  EXPECT_FALSE(same_values(snapshot(*restored), checkpointed));

  nn::Sequential restored_discriminator = make_discriminator();
  torch::load(restored_discriminator, dir / "discriminator-checkpoint.pt");
  EXPECT_TRUE(same_values(snapshot(*restored_discriminator), snapshot(*discriminator)));

  torch::optim::Adam restored_optimizer(restored->parameters(), torch::optim::AdamOptions(1.0));
  torch::load(restored_optimizer, dir / "generator-optimizer-checkpoint.pt");
  const auto saved_state = generator_optimizer.state_dict(), loaded_state = restored_optimizer.state_dict();
  ASSERT_EQ(loaded_state.state.size(), saved_state.state.size());
  // libtorch's optimizer archive: torch::load restores the state and keeps the
  // optimizer's own options, as libtorch's does.
  EXPECT_EQ(loaded_state.param_groups.at(0).options.at("lr").to_double(), 1.0);
  for (const auto& [index, state] : saved_state.state)
    EXPECT_TRUE(torch::equal(loaded_state.state.at(index).at("exp_avg").to_tensor(), state.at("exp_avg").to_tensor()));

  torch::Tensor loaded_samples;
  torch::load(loaded_samples, torch::str(dir / "dcgan-sample-", 1, ".pt"));
  EXPECT_TRUE(torch::allclose(loaded_samples, (samples + 1.0) / 2.0));

  // A checkpoint of another model is refused, naming what does not match.
  EXPECT_ERROR_WITH(torch::load(restored, dir / "discriminator-checkpoint.pt"), "conv1");
}
