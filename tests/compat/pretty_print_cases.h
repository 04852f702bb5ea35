#pragma once
// Modules printed by operator<< in both libtorch (tests/compat/libtorch/pretty_print.cpp)
// and Ember's compat layer (test_torch_pretty_print.cpp): one header that
// compiles against <torch/torch.h> and <ember/torch.h>, so both print the same cases.
#include <string>

struct PrettyPrintNetImpl : torch::nn::Module {
  PrettyPrintNetImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 8, 3).padding(1)));
    fc = register_module("fc", torch::nn::Linear(8, 2));
    head = register_module("head", torch::nn::Sequential(torch::nn::Linear(2, 2), torch::nn::Tanh()));
  }
  torch::nn::Sequential head{nullptr};
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(PrettyPrintNet);

template <class Fn>
void for_each_pretty_print_case(Fn&& fn) {
  namespace nn = torch::nn;
  fn("linear", nn::Linear(3, 4));
  fn("linear_nobias", nn::Linear(nn::LinearOptions(3, 4).bias(false)));
  fn("conv2d", nn::Conv2d(nn::Conv2dOptions(1, 16, 3)));
  fn("conv2d_full", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).stride(2).padding(1).bias(false)));
  fn("conv2d_dil_groups", nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 5}).dilation(2).groups(2)));
  fn("conv1d", nn::Conv1d(nn::Conv1dOptions(2, 4, 5).stride(1)));
  fn("conv_transpose2d", nn::ConvTranspose2d(nn::ConvTranspose2dOptions(64, 32, 4).stride(2).padding(1).bias(false)));
  fn("batchnorm1d", nn::BatchNorm1d(10));
  fn("batchnorm2d", nn::BatchNorm2d(nn::BatchNorm2dOptions(16).eps(1e-3).momentum(0.01).affine(false)));
  fn("dropout", nn::Dropout(0.2));
  fn("dropout2d", nn::Dropout2d(nn::Dropout2dOptions(0.3)));
  fn("maxpool2d", nn::MaxPool2d(nn::MaxPool2dOptions(2)));
  fn("maxpool2d_full", nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
  fn("avgpool2d", nn::AvgPool2d(nn::AvgPool2dOptions(2)));
  fn("relu", nn::ReLU());
  fn("leaky_relu", nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)));
  fn("sigmoid", nn::Sigmoid());
  fn("tanh", nn::Tanh());
  fn("embedding", nn::Embedding(nn::EmbeddingOptions(10, 3)));
  fn("embedding_pad", nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0)));
  fn("lstm", nn::LSTM(nn::LSTMOptions(8, 16).num_layers(2).batch_first(true)));
  fn("gru", nn::GRU(nn::GRUOptions(8, 16)));
  fn("layernorm", nn::LayerNorm(nn::LayerNormOptions({4, 5})));
  fn("flatten", nn::Flatten());
  fn("relu_inplace", nn::ReLU(nn::ReLUOptions(true)));
  fn("conv2d_reflect", nn::Conv2d(nn::Conv2dOptions(2, 2, 3).padding(1).padding_mode(torch::kReflect)));
  fn("batchnorm3d_no_momentum", nn::BatchNorm3d(nn::BatchNorm3dOptions(4).momentum(c10::nullopt)));
  fn("groupnorm", nn::GroupNorm(nn::GroupNormOptions(2, 4)));
  fn("softmax", nn::Softmax(nn::SoftmaxOptions(1)));
  fn("log_softmax", nn::LogSoftmax(nn::LogSoftmaxOptions(1)));
  fn("identity", nn::Identity());
  fn("elu", nn::ELU());
  fn("gelu", nn::GELU());
  fn("dropout3d", nn::Dropout3d());
  fn("avgpool1d", nn::AvgPool1d(nn::AvgPool1dOptions(3).stride(2)));
  fn("maxpool1d", nn::MaxPool1d(nn::MaxPool1dOptions(3)));
  fn("adaptive_avgpool2d", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({7, 7})));
  fn("embedding_max_norm", nn::Embedding(nn::EmbeddingOptions(5, 2).max_norm(1.5).scale_grad_by_freq(true)));
  fn("rnn", nn::RNN(nn::RNNOptions(3, 4).bidirectional(true)));
  fn("functional", nn::Functional(torch::relu));
  fn("sequential", nn::Sequential(nn::Linear(3, 4), nn::ReLU(), nn::Dropout(0.5), nn::Linear(4, 1)));
  fn("sequential_conv", nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 8, 3)), nn::BatchNorm2d(8), nn::ReLU(),
                                       nn::MaxPool2d(nn::MaxPool2dOptions(2))));
  fn("module_list", nn::ModuleList(nn::Linear(2, 3), nn::ReLU()));
  fn("user_module", PrettyPrintNet());
}
