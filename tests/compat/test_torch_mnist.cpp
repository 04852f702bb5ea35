// pytorch/examples cpp/mnist, written against <ember/torch.h> in libtorch's
// idiom (the Net, train() and test() as the example has them), on a small
// digit set in MNIST's IDX files that the test writes; and libtorch's MNIST
// reader itself: its values, layout, errors and the real Fashion-MNIST files.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "compat/compat_test_util.h"
#include "compat/idx_writer.h"
#include "temp_dir.h"

namespace {

struct Net : torch::nn::Module {
  Net()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, /*dim=*/1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

template <typename DataLoader>
double train(size_t epoch, Net& model, torch::Device device, DataLoader& data_loader,
             torch::optim::Optimizer& optimizer, size_t dataset_size) {
  model.train();
  double last_loss = 0;
  for (auto& batch : data_loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    optimizer.zero_grad();
    auto output = model.forward(data);
    auto loss = torch::nll_loss(output, targets);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();
    last_loss = loss.template item<float>();
  }
  return last_loss;
}

template <typename DataLoader>
std::pair<double, double> test(Net& model, torch::Device device, DataLoader& data_loader, size_t dataset_size) {
  torch::NoGradGuard no_grad;
  model.eval();
  double test_loss = 0;
  int32_t correct = 0;
  for (const auto& batch : data_loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    auto output = model.forward(data);
    test_loss += torch::nll_loss(output, targets,
                                 /*weight=*/{}, torch::Reduction::Sum)
                     .template item<float>();
    auto pred = output.argmax(1);
    correct += pred.eq(targets).sum().template item<int64_t>();
  }
  test_loss /= dataset_size;
  return {test_loss, static_cast<double>(correct) / dataset_size};
}

}  // namespace

TEST(TorchMnist, TrainingLoopLearnsDigits) {
  ember::testing::TempDir dir("torch_mnist");
  const std::string kDataRoot = dir.path().string();
  ember_test::write_mnist_split(kDataRoot, "train", ember_test::draw_digits(3000, 1));
  ember_test::write_mnist_split(kDataRoot, "t10k", ember_test::draw_digits(500, 2));
  const int64_t kTrainBatchSize = 64;
  const int64_t kTestBatchSize = 1000;
  const size_t kNumberOfEpochs = 3;

  torch::manual_seed(1);

  torch::DeviceType device_type;
  if (torch::cuda::is_available()) {
    device_type = torch::kCUDA;
  } else {
    device_type = torch::kCPU;
  }
  torch::Device device(device_type);
  EXPECT_EQ(device_type == torch::kCPU, !torch::cuda::is_available());

  Net model;
  model.to(device);

  auto train_dataset = torch::data::datasets::MNIST(kDataRoot)
                           .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(torch::data::transforms::Stack<>());
  const size_t train_dataset_size = train_dataset.size().value();
  ASSERT_EQ(train_dataset_size, 3000u);
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(train_dataset), torch::data::DataLoaderOptions().batch_size(kTrainBatchSize).workers(2));

  auto test_dataset = torch::data::datasets::MNIST(kDataRoot, torch::data::datasets::MNIST::Mode::kTest)
                          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(torch::data::transforms::Stack<>());
  const size_t test_dataset_size = test_dataset.size().value();
  auto test_loader = torch::data::make_data_loader(std::move(test_dataset), kTestBatchSize);

  // The example's optimizer, with a larger step for a run of 141 batches instead of 9380.
  torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(0.05).momentum(0.5));

  auto [loss_before, accuracy_before] = test(model, device, *test_loader, test_dataset_size);
  for (size_t epoch = 1; epoch <= kNumberOfEpochs; ++epoch) {
    const double last = train(epoch, model, device, *train_loader, optimizer, train_dataset_size);
    EXPECT_TRUE(std::isfinite(last));
  }
  auto [loss_after, accuracy_after] = test(model, device, *test_loader, test_dataset_size);
  SCOPED_TRACE(torch::str("test loss ", loss_before, " -> ", loss_after, ", accuracy ", accuracy_before, " -> ",
                          accuracy_after));
  ::testing::Test::RecordProperty("test_accuracy", std::to_string(accuracy_after));
  EXPECT_LT(accuracy_before, 0.3);  // chance is 0.1
  EXPECT_GT(accuracy_after, 0.9);
  EXPECT_LT(loss_after, 0.5 * loss_before);
}

TEST(TorchMnist, ReadsIdxFilesAsLibtorch) {
  ember::testing::TempDir dir("torch_mnist_read");
  const ember_test::DigitSet set = ember_test::draw_digits(37, 3);
  ember_test::write_mnist_split(dir.path().string(), "train", set);
  torch::data::datasets::MNIST mnist(dir.path().string());
  EXPECT_TRUE(mnist.is_train());
  ASSERT_EQ(mnist.size().value(), 37u);
  EXPECT_EQ(mnist.images().sizes().vec(), (std::vector<int64_t>{37, 1, 28, 28}));
  EXPECT_EQ(mnist.images().dtype(), torch::kFloat32);
  EXPECT_EQ(mnist.targets().dtype(), torch::kInt64);
  for (size_t i : {0u, 17u, 36u}) {
    torch::data::Example<> example = mnist.get(i);
    EXPECT_EQ(example.target.item<int64_t>(), set.labels[i]);
    EXPECT_EQ(example.data.sizes().vec(), (std::vector<int64_t>{1, 28, 28}));
    for (int p : {0, 100, 300, 783}) {
      const float expected = static_cast<float>(set.images[i * 784 + p]) / 255.0f;
      EXPECT_FLOAT_EQ(example.data[0][p / 28][p % 28].item<float>(), expected);
    }
  }
  EXPECT_ERROR_WITH(mnist.get(37), "MNIST", "37");
}

TEST(TorchMnist, MissingOrMalformedFilesAreErrors) {
  ember::testing::TempDir dir("torch_mnist_bad");
  const std::string root = dir.path().string();
  EXPECT_ERROR_WITH(torch::data::datasets::MNIST(root), "train-images-idx3-ubyte");
  ember_test::write_mnist_split(root, "t10k", ember_test::draw_digits(5, 4));
  EXPECT_ERROR_WITH(torch::data::datasets::MNIST(root), "train-images-idx3-ubyte");
  // Labels for 4 images but 5 images.
  ember_test::write_idx(root + "/t10k-labels-idx1-ubyte", {4}, {1, 2, 3, 4});
  EXPECT_ERROR_WITH(torch::data::datasets::MNIST(root, torch::data::datasets::MNIST::Mode::kTest), "5 images",
                    "4 labels");
  // A truncated image file.
  {
    std::ofstream out(root + "/t10k-images-idx3-ubyte", std::ios::binary | std::ios::trunc);
    const unsigned char header[16] = {0, 0, 8, 3, 0, 0, 0, 4, 0, 0, 0, 28, 0, 0, 0, 28};
    out.write(reinterpret_cast<const char*>(header), 16);
  }
  EXPECT_ERROR_WITH(torch::data::datasets::MNIST(root, torch::data::datasets::MNIST::Mode::kTest),
                    "t10k-images-idx3-ubyte");
}

// Zalando's Fashion-MNIST test split (../shared/data/datasets/fashion-mnist,
// gzipped IDX): 10,000 images, 1,000 of each class.
TEST(TorchMnist, ReadsRealFashionMnistTestSplit) {
  const std::string root = ember_test::shared_data("datasets/fashion-mnist");
  if (root.empty()) GTEST_SKIP() << "../shared/data/datasets/fashion-mnist is absent";
  torch::data::datasets::MNIST mnist(root, torch::data::datasets::MNIST::Mode::kTest);
  ASSERT_EQ(mnist.size().value(), 10000u);
  EXPECT_FALSE(mnist.is_train());
  const torch::Tensor counts = torch::zeros({10}, torch::kInt64).scatter_add(
      0, mnist.targets(), torch::ones({10000}, torch::kInt64));
  EXPECT_TRUE(counts.eq(1000).all().item<bool>()) << counts;
  EXPECT_GE(mnist.images().min().item<float>(), 0.0f);
  EXPECT_LE(mnist.images().max().item<float>(), 1.0f);
  EXPECT_FLOAT_EQ(mnist.images().max().item<float>(), 1.0f);
}
