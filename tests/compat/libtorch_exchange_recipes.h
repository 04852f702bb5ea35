#pragma once
// The recipes that an Ember program and a libtorch program both follow to
// exchange archives (tests/compat/test_torch_libtorch_archives.cpp and
// tests/compat/libtorch/libtorch_exchange.cpp): written in the spelling the two
// share, so this one header compiles against <torch/torch.h> and against
// <ember/torch.h>. Values are chosen exact in float32 where they are inputs
// (parameters, data), so the two sides start from identical bits.
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace exchange {

struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(torch::nn::LinearOptions(3, 4)), fc2(torch::nn::LinearOptions(4, 2)) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::tanh(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

// Parameter k (in parameters() order) holds (arange(numel) * 0.125 - 0.25 * k + shift).
inline Net make_net(double shift = 0) {
  Net net;
  torch::NoGradGuard no_grad;
  int64_t k = 0;
  for (torch::Tensor p : net->parameters()) {
    p.copy_((torch::arange(p.numel(), torch::kFloat32) * 0.125 - 0.25 * static_cast<double>(k) + shift)
                .reshape(p.sizes()));
    ++k;
  }
  return net;
}

inline const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = {"sgd", "adam", "adamw", "rmsprop", "adagrad", "lbfgs"};
  return names;
}

inline std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name, Net& net) {
  namespace optim = torch::optim;
  if (name == "sgd") return std::make_unique<optim::SGD>(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  if (name == "adam")
    return std::make_unique<optim::Adam>(net->parameters(),
                                         optim::AdamOptions(0.01).betas(std::make_tuple(0.8, 0.9)).amsgrad(true));
  if (name == "adamw")
    return std::make_unique<optim::AdamW>(net->parameters(), optim::AdamWOptions(0.01).weight_decay(0.1));
  if (name == "rmsprop")
    return std::make_unique<optim::RMSprop>(net->parameters(),
                                            optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
  if (name == "lbfgs")
    return std::make_unique<optim::LBFGS>(net->parameters(),
                                          optim::LBFGSOptions(0.5).max_iter(4).history_size(3));
  return std::make_unique<optim::Adagrad>(net->parameters(), optim::AdagradOptions(0.1));
}

// How close the two sides' parameters are after the same steps: float32
// rounding (Ember's reductions sum in another order than libtorch's). LBFGS's
// 4 inner iterations a step, each through dot products over all parameters
// and a history of 3, amplify it: Ember's 3 steps are within 8e-6 of
// libtorch's (and of PyTorch's torch.optim.LBFGS, which libtorch's equal).
struct Tolerance {
  double rtol, atol;
};
inline Tolerance tolerance(const std::string& optimizer) {
  return optimizer == "lbfgs" ? Tolerance{1e-4, 2e-5} : Tolerance{1e-5, 1e-6};
}

// `steps` steps on a fixed batch, each through a closure (LBFGS needs one;
// the others run it once, as a plain step).
inline void train(Net& net, torch::optim::Optimizer& optimizer, int steps) {
  const torch::Tensor x = (torch::arange(12, torch::kFloat32) * 0.25 - 1.5).reshape({4, 3});
  const torch::Tensor y = (torch::arange(8, torch::kFloat32) * 0.5 - 2).reshape({4, 2});
  for (int i = 0; i < steps; ++i) {
    optimizer.step([&] {
      optimizer.zero_grad();
      torch::Tensor loss = (net->forward(x) - y).pow(2).mean();
      loss.backward();
      return loss;
    });
  }
}

// The tensors of the tensor archives.
inline torch::Tensor single_tensor() {
  return torch::arange(12, torch::kFloat64).reshape({3, 4}) * 0.5 - 1;
}
inline std::vector<torch::Tensor> tensor_list() {
  return {torch::ones({2}, torch::kFloat32), torch::arange(5, torch::kInt64) - 2,
          torch::arange(6, torch::kInt32).reshape({2, 3})};
}

// Samplers saved mid-epoch: make_sampler(name) takes its first batch of 3 and
// is saved (sampler_<name>.pt), the rest of its epoch saved as a tensor
// (sampler_<name>_rest.pt); the other side loads the sampler into
// fresh_sampler(name) (another size or epoch, so the state must come from the
// file) and must draw that rest.
inline const std::vector<std::string>& sampler_names() {
  static const std::vector<std::string> names = {"sequential", "random", "distributed_random",
                                                 "distributed_sequential"};
  return names;
}
inline std::unique_ptr<torch::data::samplers::Sampler<>> make_sampler(const std::string& name, bool fresh = false) {
  namespace s = torch::data::samplers;
  if (name == "sequential") return std::make_unique<s::SequentialSampler>(10);
  if (name == "random") return std::make_unique<s::RandomSampler>(fresh ? 4 : 10);
  if (name == "distributed_random") {
    auto sampler = std::make_unique<s::DistributedRandomSampler>(11, 2, 1);
    if (!fresh) {
      sampler->set_epoch(3);
      sampler->reset();
    }
    return sampler;
  }
  return std::make_unique<s::DistributedSequentialSampler>(11, 2, 1);
}
inline torch::Tensor drain(torch::data::samplers::Sampler<>& sampler) {
  std::vector<int64_t> out;
  while (auto batch = sampler.next(3)) out.insert(out.end(), batch->begin(), batch->end());
  return torch::tensor(out, torch::kInt64);
}

// An archive built key by key with serialize::OutputArchive (libtorch's
// custom-archive idiom): a parameter, a buffer, attributes of each plain type,
// a tensor attribute and a nested archive with its own nested archive. Saved
// through a stream by both sides (archive.save_to(std::ostream&)).
inline void write_custom_archive(torch::serialize::OutputArchive& archive) {
  archive.write("weights", single_tensor());
  archive.write("counts", tensor_list()[1], /*is_buffer=*/true);
  archive.write("epoch", c10::IValue(static_cast<int64_t>(7)));
  archive.write("rate", c10::IValue(0.375));
  archive.write("tag", c10::IValue(std::string("ember-libtorch")));
  archive.write("finished", c10::IValue(true));
  torch::serialize::OutputArchive inner;
  inner.write("table", tensor_list()[2]);
  torch::serialize::OutputArchive child;
  child.write("bias", tensor_list()[0]);
  child.write("steps", c10::IValue(static_cast<int64_t>(-3)));
  child.write("inner", inner);
  archive.write("child", child);
}

// What write_custom_archive wrote, read back with serialize::InputArchive;
// the first difference found, or "" when everything matches.
inline std::string check_custom_archive(torch::serialize::InputArchive& archive) {
  auto same = [](const torch::Tensor& a, const torch::Tensor& b) {
    return a.defined() && a.dtype() == b.dtype() && a.sizes() == b.sizes() && torch::equal(a, b);
  };
  torch::Tensor weights, counts, bias, table;
  archive.read("weights", weights);
  if (!same(weights, single_tensor())) return "'weights' differs";
  archive.read("counts", counts, /*is_buffer=*/true);
  if (!same(counts, tensor_list()[1])) return "'counts' differs";
  c10::IValue epoch, rate, tag, finished, steps, missing;
  archive.read("epoch", epoch);
  if (!epoch.isInt() || epoch.toInt() != 7) return "'epoch' is not the int 7";
  archive.read("rate", rate);
  if (!rate.isDouble() || rate.toDouble() != 0.375) return "'rate' is not the float 0.375";
  archive.read("tag", tag);
  if (!tag.isString() || tag.toStringRef() != "ember-libtorch") return "'tag' is not 'ember-libtorch'";
  archive.read("finished", finished);
  if (!finished.isBool() || !finished.toBool()) return "'finished' is not true";
  if (archive.try_read("no_such_key", missing)) return "try_read found 'no_such_key'";
  torch::serialize::InputArchive child, inner;
  archive.read("child", child);
  child.read("bias", bias);
  if (!same(bias, tensor_list()[0])) return "'child.bias' differs";
  child.read("steps", steps);
  if (!steps.isInt() || steps.toInt() != -3) return "'child.steps' is not the int -3";
  child.read("inner", inner);
  // Reading into a defined tensor replaces its data in place.
  table = torch::zeros({1}, torch::kInt32);
  const torch::Tensor alias = table;
  inner.read("table", table);
  if (!same(alias, tensor_list()[2])) return "'child.inner.table' differs (or was not read in place)";
  return "";
}

}  // namespace exchange
