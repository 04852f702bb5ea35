// Suite models: ResNet-18 / ResNet-50 / MobileNetV2 inference (224x224, batch
// 1 and 8, NCHW and channels-last, eval mode) and a ResNet-18 training step
// (16x3x64x64, cross-entropy, SGD with momentum), Ember::models vs libtorch.
// (The ember-train epoch against a PyTorch script is apps_train_epoch.cpp.)
//
// The peer: libtorch's C++ API has no torchvision models, so the same
// networks are built here with torch::nn modules, following torchvision
// 0.14's resnet.py and mobilenetv2.py line by line (in-place ReLU / ReLU6,
// `out += identity`), and run eagerly,
// as torchvision runs in Python minus the interpreter. (A TorchScript module
// from torch.jit.save would run through the JIT's graph executor, which
// applies its own fusions: a different product from eager torchvision.)
// Both sides get the same weights (libtorch's init, copied by name into
// Ember's state_dict) and the same input.
#include <torch/torch.h>

#include "bench.h"
#include "ember/models/mobilenet_v2.h"
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

// ---- torchvision's MobileNetV2 with torch::nn ----

// A Sequential that can sit inside another (torch::nn's AnyModule needs a
// forward with concrete types; torchvision's C++ models do the same).
struct TSeqImpl : tnn::SequentialImpl {
  using SequentialImpl::SequentialImpl;
  torch::Tensor forward(torch::Tensor x) { return SequentialImpl::forward(x); }
};
TORCH_MODULE(TSeq);

// Conv2dNormActivation: Conv2d (no bias), BatchNorm2d, ReLU6 (in place).
TSeq conv_bn_relu6(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t groups) {
  return TSeq(
      tnn::Conv2d(tnn::Conv2dOptions(in, out, k).stride(stride).padding((k - 1) / 2).groups(groups).bias(false)),
      tnn::BatchNorm2d(out), tnn::ReLU6(tnn::ReLU6Options(true)));
}

struct TInvertedResidualImpl : tnn::Module {
  TInvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride, int64_t expand_ratio)
      : use_res_connect(stride == 1 && inp == oup) {
    const int64_t hidden = inp * expand_ratio;
    TSeq layers;
    if (expand_ratio != 1) layers->push_back(conv_bn_relu6(inp, hidden, 1, 1, 1));
    layers->push_back(conv_bn_relu6(hidden, hidden, 3, stride, hidden));
    layers->push_back(tnn::Conv2d(tnn::Conv2dOptions(hidden, oup, 1).bias(false)));
    layers->push_back(tnn::BatchNorm2d(oup));
    conv = register_module("conv", layers);
  }
  torch::Tensor forward(torch::Tensor x) { return use_res_connect ? x + conv->forward(x) : conv->forward(x); }
  bool use_res_connect;
  TSeq conv{nullptr};
};
TORCH_MODULE(TInvertedResidual);

struct TMobileNetV2Impl : tnn::Module {
  explicit TMobileNetV2Impl(int64_t num_classes) {
    tnn::Sequential f;
    f->push_back(conv_bn_relu6(3, 32, 3, 2, 1));
    int64_t in = 32;
    const int64_t settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    for (const auto& [t, c, n, s] : settings) {
      for (int64_t i = 0; i < n; ++i) {
        f->push_back(TInvertedResidual(in, c, i == 0 ? s : 1, t));
        in = c;
      }
    }
    f->push_back(conv_bn_relu6(in, 1280, 1, 1, 1));
    features = register_module("features", f);
    classifier = register_module("classifier", tnn::Sequential(tnn::Dropout(0.2), tnn::Linear(1280, num_classes)));
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<tnn::Conv2d>()) tnn::init::kaiming_normal_(c->weight, 0, torch::kFanOut);
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::adaptive_avg_pool2d(features->forward(x), {1, 1});
    return classifier->forward(torch::flatten(x, 1));
  }
  tnn::Sequential features{nullptr}, classifier{nullptr};
};
TORCH_MODULE(TMobileNetV2);

// Gives Ember's model the peer's weights, by state_dict name. BN statistics
// and scales are perturbed first so that eval mode does not run an identity
// normalization.
void copy_peer_weights(ember::nn::Module& ours, tnn::Module& peer) {
  torch::NoGradGuard no_grad;
  ember::NoGradGuard ember_no_grad;
  std::map<std::string, at::Tensor> peer_state;
  for (const auto& kv : peer.named_parameters()) peer_state[kv.key()] = kv.value();
  for (const auto& kv : peer.named_buffers()) peer_state[kv.key()] = kv.value();
  for (auto& [name, t] : peer_state) {
    if (name.find("running_var") != std::string::npos) t.uniform_(0.5, 1.5);
    if (name.find("running_mean") != std::string::npos) t.uniform_(-0.2, 0.2);
    if (t.dim() == 1 && name.ends_with("weight")) t.uniform_(0.5, 1.0);  // BatchNorm scales
  }
  const auto ours_state = ours.state_dict();
  if (ours_state.size() != peer_state.size())
    throw std::runtime_error("models bench: state_dict sizes differ: " + std::to_string(ours_state.size()) + " vs " +
                             std::to_string(peer_state.size()));
  for (const auto& [name, t] : ours_state) {
    auto it = peer_state.find(name);
    if (it == peer_state.end()) throw std::runtime_error("models bench: libtorch model has no " + name);
    ember::Tensor dst = t;
    dst.copy_(ember_bench::to_ember(it->second));
  }
}

// Both models of one architecture with the same weights.
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
  copy_peer_weights(*p.ours, *p.peer);
  return p;
}

void to_channels_last(tnn::Module& net) {
  torch::NoGradGuard no_grad;
  for (auto& p : net.parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
}

// Eval-mode forward of one model pair at 224x224, both sides under their
// InferenceMode (the harness runs libtorch under it). In inference Ember runs
// MobileNetV2's Conv -> BatchNorm (-> ReLU6) as folded convolutions
// (nn::utils::SequentialFusion); libtorch's eager modules run each layer.
template <class Ours, class Peer>
Case inference_case(Ours ours_net, Peer peer_net, int64_t batch, bool cl) {
  ours_net->eval();
  peer_net->eval();
  at::Tensor input = at::randn({batch, 3, 224, 224});
  if (cl) {
    ours_net->to(ember::MemoryFormat::ChannelsLast);
    to_channels_last(*peer_net);
    input = input.contiguous(at::MemoryFormat::ChannelsLast);
  }
  auto x = twin(input);
  auto ours = [net = ours_net, x = x.e]() mutable {
    ember::InferenceMode guard;
    return net(x);
  };
  auto peer = [net = peer_net, x = x.t]() mutable { return net->forward(x); };
  return Case{.ember = ours, .peer = peer, .rtol = 1e-3, .atol = 1e-3};
}

std::string infer_name(const std::string& model, int64_t batch, bool cl) {
  return model + "_infer_b" + std::to_string(batch) + (cl ? "_cl" : "_nchw");
}

ember_bench::Workload inference(bool resnet50, int64_t batch, bool cl) {
  return {"models", infer_name(resnet50 ? "resnet50" : "resnet18", batch, cl), [resnet50, batch, cl] {
            Pair p = make_pair(resnet50, 1000);
            return inference_case(p.ours, p.peer, batch, cl);
          }};
}

ember_bench::Workload mobilenet_v2_inference(int64_t batch, bool cl) {
  return {"models", infer_name("mobilenet_v2", batch, cl), [batch, cl] {
            auto ours = ember::models::mobilenet_v2({.num_classes = 1000});
            TMobileNetV2 peer(1000);
            copy_peer_weights(*ours, *peer);
            return inference_case(ours, peer, batch, cl);
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
              to_channels_last(*p.peer);
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
            // The NCHW step is also timed with one core taken by another process.
            return Case{.ember = ours, .peer = peer, .rtol = 1e-3, .atol = 1e-4, .under_load = !cl};
          }};
}

std::vector<ember_bench::Workload> all() {
  std::vector<ember_bench::Workload> v;
  for (bool resnet50 : {false, true})
    for (int64_t batch : {1, 8})
      for (bool cl : {false, true}) v.push_back(inference(resnet50, batch, cl));
  for (int64_t batch : {1, 8})
    for (bool cl : {false, true}) v.push_back(mobilenet_v2_inference(batch, cl));
  for (bool cl : {false, true}) v.push_back(train_step(cl));
  return v;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(all());

}  // namespace
