// Compose, RandomApply, RandomChoice, RandomOrder, Lambda.
#include "ember/transforms/containers.h"

#include <cmath>
#include <map>
#include <optional>
#include <mutex>
#include <numeric>

#include <ember/ops/random.h>

#include "transforms/containers_registry.h"

namespace ember::transforms {
namespace {

std::vector<TransformPtr> checked(std::vector<TransformPtr> transforms, const char* type) {
  for (size_t i = 0; i < transforms.size(); ++i)
    EMBER_CHECK(transforms[i] != nullptr, type, ": transform ", i, " is empty");
  return transforms;
}

struct LambdaRegistry {
  std::mutex mutex;
  std::map<std::string, LambdaImpl::Fn> functions;
};
LambdaRegistry& lambdas() {
  static LambdaRegistry r;
  return r;
}

}  // namespace

ComposeImpl::ComposeImpl(std::vector<TransformPtr> transforms) : ComposeImpl("Compose", std::move(transforms)) {}

ComposeImpl::ComposeImpl(std::string type_name, std::vector<TransformPtr> transforms)
    : TransformImpl(type_name), transforms_(checked(std::move(transforms), type_name.c_str())) {
  for (size_t i = 0; i < transforms_.size(); ++i) register_module(std::to_string(i), transforms_[i]);
}

Tensor ComposeImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (size_t i = 0; i < transforms_.size(); ++i) {
    // A pair with a fused form (vision's ConvertImageDtype(float) + Normalize
    // on uint8) runs as one pass (same values).
    if (i + 1 < transforms_.size()) {
      if (auto fused = transforms_[i]->forward_fused(*transforms_[i + 1], x)) {
        x = std::move(*fused);
        ++i;
        continue;
      }
    }
    x = transforms_[i]->forward(x);
  }
  return x;
}

RandomApplyImpl::RandomApplyImpl(std::vector<TransformPtr> transforms, double p)
    : ComposeImpl("RandomApply", std::move(transforms)), p_(p) {
  EMBER_CHECK(p >= 0 && p <= 1, "RandomApply: p must be in [0, 1], got ", p);
}

Tensor RandomApplyImpl::forward(const Tensor& input) {
  // torchvision: `if self.p < torch.rand(1): return img`.
  if (p_ < uniform_scalar(0, 1)) return input;
  return ComposeImpl::forward(input);
}

RandomChoiceImpl::RandomChoiceImpl(std::vector<TransformPtr> transforms, std::vector<double> p)
    : ComposeImpl("RandomChoice", std::move(transforms)), p_(std::move(p)) {
  EMBER_CHECK(!transforms_.empty(), "RandomChoice: needs at least one transform");
  EMBER_CHECK(p_.empty() || p_.size() == transforms_.size(), "RandomChoice: got ", p_.size(),
              " probabilities for ", transforms_.size(), " transforms");
  double total = 0;
  for (double w : p_) {
    EMBER_CHECK(w >= 0 && std::isfinite(w), "RandomChoice: probabilities must be finite and >= 0, got ", w);
    total += w;
  }
  EMBER_CHECK(p_.empty() || total > 0, "RandomChoice: the probabilities sum to 0");
}

Tensor RandomChoiceImpl::forward(const Tensor& input) {
  size_t pick = 0;
  if (p_.empty()) {
    pick = static_cast<size_t>(randint_scalar(0, static_cast<int64_t>(transforms_.size())));
  } else {
    const double total = std::accumulate(p_.begin(), p_.end(), 0.0);
    double u = uniform_scalar(0, total);
    for (; pick + 1 < p_.size() && u >= p_[pick]; ++pick) u -= p_[pick];
    while (p_[pick] == 0) --pick;  // rounding can run past the last non-zero weight
  }
  return transforms_[pick]->forward(input);
}

Params RandomChoiceImpl::params() const {
  if (p_.empty()) return {{"p", IValue()}};
  return {{"p", p_}};
}

RandomOrderImpl::RandomOrderImpl(std::vector<TransformPtr> transforms)
    : ComposeImpl("RandomOrder", std::move(transforms)) {}

Tensor RandomOrderImpl::forward(const Tensor& input) {
  // A Fisher-Yates shuffle of the indices, one draw per position.
  std::vector<size_t> order(transforms_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[static_cast<size_t>(randint_scalar(0, static_cast<int64_t>(i)))]);
  Tensor x = input;
  for (size_t i : order) x = transforms_[i]->forward(x);
  return x;
}

LambdaImpl::LambdaImpl(Fn fn, std::string name) : TransformImpl("Lambda"), fn_(std::move(fn)), name_(std::move(name)) {
  EMBER_CHECK(fn_ != nullptr, "Lambda: the function is empty");
}

Params LambdaImpl::params() const {
  EMBER_CHECK(!name_.empty(), "Lambda: an unnamed Lambda cannot be saved; construct it as Lambda(fn, \"name\") and "
              "register_lambda(\"name\", fn) before loading");
  return {{"name", name_}};
}

void register_lambda(const std::string& name, LambdaImpl::Fn fn) {
  EMBER_CHECK(!name.empty() && fn != nullptr, "register_lambda: needs a name and a function");
  LambdaRegistry& r = lambdas();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.functions[name] = std::move(fn);
}

namespace detail {

void register_container_transforms(const AddTransform& add) {
  add("Compose", [](const Params&, std::vector<TransformPtr> children) {
    return std::make_shared<ComposeImpl>(std::move(children));
  });
  add("RandomApply", [](const Params& p, std::vector<TransformPtr> children) {
    return std::make_shared<RandomApplyImpl>(std::move(children), param<double>(p, "p", "RandomApply"));
  });
  add("RandomChoice", [](const Params& p, std::vector<TransformPtr> children) {
    auto weights = param<std::optional<std::vector<double>>>(p, "p", "RandomChoice");
    return std::make_shared<RandomChoiceImpl>(std::move(children), weights.value_or(std::vector<double>{}));
  });
  add("RandomOrder", [](const Params&, std::vector<TransformPtr> children) {
    return std::make_shared<RandomOrderImpl>(std::move(children));
  });
  add("Lambda", [](const Params& p, std::vector<TransformPtr>) {
    const auto name = param<std::string>(p, "name", "Lambda");
    LambdaRegistry& r = lambdas();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.functions.find(name);
    EMBER_CHECK(it != r.functions.end(), "transforms::load: Lambda '", name,
                "' is not registered; call transforms::register_lambda(\"", name, "\", fn) before loading");
    return std::make_shared<LambdaImpl>(it->second, name);
  });
}

}  // namespace detail
}  // namespace ember::transforms
