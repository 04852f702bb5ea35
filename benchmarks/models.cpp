// Suite models: ResNet-18 / ResNet-50 inference (224x224, batch 1 and 8, NCHW
// and channels-last, eval mode) and a ResNet-18 training step (16x3x64x64,
// cross-entropy, SGD with momentum), Ember::models vs libtorch.
//
// The peer: libtorch's C++ API has no torchvision models, so the same ResNet
// is built here with torch::nn modules, following torchvision 0.14's
// resnet.py line by line (in-place ReLU, `out += identity`), and run eagerly,
// as torchvision runs in Python minus the interpreter. (A TorchScript module
// from torch.jit.save would run through the JIT's graph executor, which
// applies its own fusions: a different product from eager torchvision.)
// Both sides get the same weights (libtorch's init, copied by name into
// Ember's state_dict) and the same input.
#include <torch/torch.h>

#include "bench.h"
#include "ember/models/resnet.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;
namespace tnn = torch::nn;

// ---- torchvision's ResNet with torch::nn ----

tnn::Conv2d tconv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return tnn::Conv2d(tnn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

struct TBlockImpl : tnn::Module {
  TBlockImpl(int64_t inplanes, int64_t planes, int64_t stride, bool bottleneck, bool with_downsample)
      : bottleneck(bottleneck) {
    const int64_t expansion = bottleneck ? 4 : 1;
    if (bottleneck) {
      conv1 = register_module("conv1", tconv(inplanes, planes, 1, 1, 0));
      bn1 = register_module("bn1", tnn::BatchNorm2d(planes));
      conv2 = register_module("conv2", tconv(planes, planes, 3, stride, 1));
      bn2 = register_module("bn2", tnn::BatchNorm2d(planes));
      conv3 = register_module("conv3", tconv(planes, planes * expansion, 1, 1, 0));
      bn3 = register_module("bn3", tnn::BatchNorm2d(planes * expansion));
    } else {
      conv1 = register_module("conv1", tconv(inplanes, planes, 3, stride, 1));
      bn1 = register_module("bn1", tnn::BatchNorm2d(planes));
      conv2 = register_module("conv2", tconv(planes, planes, 3, 1, 1));
      bn2 = register_module("bn2", tnn::BatchNorm2d(planes));
    }
    if (with_downsample) {
      downsample = register_module(
          "downsample", tnn::Sequential(tconv(inplanes, planes * expansion, 1, stride, 0),
                                        tnn::BatchNorm2d(planes * expansion)));
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out));
    if (bottleneck) out = bn3(conv3(out.relu_()));
    torch::Tensor identity = downsample ? downsample->forward(x) : x;
    out += identity;
    return out.relu_();
  }
  bool bottleneck;
  tnn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  tnn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  tnn::Sequential downsample{nullptr};
};
TORCH_MODULE(TBlock);

struct TResNetImpl : tnn::Module {
  TResNetImpl(bool bottleneck, std::vector<int64_t> layers, int64_t num_classes) {
    const int64_t expansion = bottleneck ? 4 : 1;
    conv1 = register_module("conv1", tconv(3, 64, 7, 2, 3));
    bn1 = register_module("bn1", tnn::BatchNorm2d(64));
    maxpool = register_module("maxpool", tnn::MaxPool2d(tnn::MaxPool2dOptions(3).stride(2).padding(1)));
    int64_t inplanes = 64;
    const int64_t planes[] = {64, 128, 256, 512};
    for (int i = 0; i < 4; ++i) {
      tnn::Sequential layer;
      const int64_t stride = i == 0 ? 1 : 2;
      layer->push_back(TBlock(inplanes, planes[i], stride, bottleneck,
                              stride != 1 || inplanes != planes[i] * expansion));
      inplanes = planes[i] * expansion;
      for (int64_t b = 1; b < layers[i]; ++b) layer->push_back(TBlock(inplanes, planes[i], 1, bottleneck, false));
      stages.push_back(register_module("layer" + std::to_string(i + 1), layer));
    }
    avgpool = register_module("avgpool", tnn::AdaptiveAvgPool2d(tnn::AdaptiveAvgPool2dOptions({1, 1})));
    fc = register_module("fc", tnn::Linear(512 * expansion, num_classes));
    // torchvision's init.
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<tnn::Conv2d>()) {
        tnn::init::kaiming_normal_(c->weight, 0, torch::kFanOut, torch::kReLU);
      }
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    x = maxpool(bn1(conv1(x)).relu_());
    for (auto& layer : stages) x = layer->forward(x);
    return fc(torch::flatten(avgpool(x), 1));
  }
  tnn::Conv2d conv1{nullptr};
  tnn::BatchNorm2d bn1{nullptr};
  tnn::MaxPool2d maxpool{nullptr};
  std::vector<tnn::Sequential> stages;
  tnn::AdaptiveAvgPool2d avgpool{nullptr};
  tnn::Linear fc{nullptr};
};
TORCH_MODULE(TResNet);

// Both models of one architecture with the same weights. BN statistics are
// perturbed so that eval mode does not run an identity normalization.
struct Pair {
  ember::models::ResNet ours{nullptr};
  TResNet peer{nullptr};
};

Pair make_pair(bool resnet50, int64_t num_classes) {
  Pair p;
  p.ours = resnet50 ? ember::models::resnet50({.num_classes = num_classes})
                    : ember::models::resnet18({.num_classes = num_classes});
  p.peer = resnet50 ? TResNet(true, std::vector<int64_t>{3, 4, 6, 3}, num_classes)
                    : TResNet(false, std::vector<int64_t>{2, 2, 2, 2}, num_classes);
  torch::NoGradGuard no_grad;
  ember::NoGradGuard ember_no_grad;
  std::map<std::string, at::Tensor> peer_state;
  for (const auto& kv : p.peer->named_parameters()) peer_state[kv.key()] = kv.value();
  for (const auto& kv : p.peer->named_buffers()) peer_state[kv.key()] = kv.value();
  for (auto& [name, t] : peer_state) {
    if (name.find("running_var") != std::string::npos) t.uniform_(0.5, 1.5);
    if (name.find("running_mean") != std::string::npos) t.uniform_(-0.2, 0.2);
    if (name.find("bn") != std::string::npos && name.ends_with("weight")) t.uniform_(0.5, 1.0);
  }
  const auto ours_state = p.ours->state_dict();
  if (ours_state.size() != peer_state.size())
    throw std::runtime_error("models bench: state_dict sizes differ: " + std::to_string(ours_state.size()) + " vs " +
                             std::to_string(peer_state.size()));
  for (const auto& [name, t] : ours_state) {
    auto it = peer_state.find(name);
    if (it == peer_state.end()) throw std::runtime_error("models bench: libtorch model has no " + name);
    ember::Tensor dst = t;
    dst.copy_(ember_bench::to_ember(it->second));
  }
  return p;
}

void to_channels_last(TResNet& net) {
  torch::NoGradGuard no_grad;
  for (auto& p : net->parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
}

ember_bench::Workload inference(bool resnet50, int64_t batch, bool cl) {
  const std::string name = std::string(resnet50 ? "resnet50" : "resnet18") + "_infer_b" + std::to_string(batch) +
                           (cl ? "_cl" : "_nchw");
  return {"models", name, [resnet50, batch, cl] {
            Pair p = make_pair(resnet50, 1000);
            p.ours->eval();
            p.peer->eval();
            at::Tensor input = at::randn({batch, 3, 224, 224});
            if (cl) {
              p.ours->to(ember::MemoryFormat::ChannelsLast);
              to_channels_last(p.peer);
              input = input.contiguous(at::MemoryFormat::ChannelsLast);
            }
            auto x = twin(input);
            auto ours = [net = p.ours, x = x.e]() mutable {
              ember::InferenceMode guard;
              return net(x);
            };
            auto peer = [net = p.peer, x = x.t]() mutable { return net->forward(x); };
            return Case{.ember = ours, .peer = peer, .rtol = 1e-3, .atol = 1e-3};
          }};
}

ember_bench::Workload train_step(bool cl) {
  return {"models", std::string("resnet18_train_step_b16_64x64") + (cl ? "_cl" : "_nchw"), [cl] {
            c10::InferenceMode no_inference(false);
            Pair p = make_pair(false, 10);
            p.ours->train();
            p.peer->train();
            at::Tensor input = at::randn({16, 3, 64, 64});
            if (cl) {
              p.ours->to(ember::MemoryFormat::ChannelsLast);
              to_channels_last(p.peer);
              input = input.contiguous(at::MemoryFormat::ChannelsLast);
            }
            auto x = twin(input);
            auto y = twin(at::randint(0, 10, {16}, at::kLong));
            auto ours_opt = std::make_shared<ember::optim::SGD>(
                p.ours->parameters(), ember::optim::SGDOptions{.lr = 0.01, .momentum = 0.9, .weight_decay = 1e-4});
            auto peer_opt = std::make_shared<torch::optim::SGD>(
                p.peer->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(1e-4));
            auto ours = [net = p.ours, ours_opt, x = x.e, y = y.e]() mutable {
              ours_opt->zero_grad();
              ember::Tensor loss = ember::nn::functional::cross_entropy(net(x), y);
              loss.backward();
              ours_opt->step();
              return loss.detach();
            };
            auto peer = [net = p.peer, peer_opt, x = x.t, y = y.t]() mutable {
              c10::InferenceMode no_inference_run(false);
              peer_opt->zero_grad();
              at::Tensor loss = torch::nn::functional::cross_entropy(net->forward(x), y);
              loss.backward();
              peer_opt->step();
              return loss.detach();
            };
            return Case{.ember = ours, .peer = peer, .rtol = 1e-3, .atol = 1e-4};
          }};
}

std::vector<ember_bench::Workload> all() {
  std::vector<ember_bench::Workload> v;
  for (bool resnet50 : {false, true})
    for (int64_t batch : {1, 8})
      for (bool cl : {false, true}) v.push_back(inference(resnet50, batch, cl));
  for (bool cl : {false, true}) v.push_back(train_step(cl));
  return v;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(all());

}  // namespace
