#pragma once
// Transforms made of transforms: Compose (= Sequential), RandomApply,
// RandomChoice, RandomOrder, and Lambda (a user function).
#include <functional>
#include <string>
#include <vector>

#include "ember/transforms/transform.h"

namespace ember::transforms {

// Applies the transforms in order (torchvision's Compose and nn.Sequential).
class ComposeImpl : public TransformImpl {
 public:
  explicit ComposeImpl(std::vector<TransformPtr> transforms);
  Tensor forward(const Tensor& input) override;
  Params params() const override { return {}; }
  const std::vector<TransformPtr>& transforms() const { return transforms_; }

 protected:
  ComposeImpl(std::string type_name, std::vector<TransformPtr> transforms);
  std::vector<TransformPtr> transforms_;
};
EMBER_TRANSFORM_LIST(Compose);
using Sequential = Compose;

// Applies all of its transforms, in order, with probability p; else returns
// the input unchanged. One draw per call.
class RandomApplyImpl : public ComposeImpl {
 public:
  explicit RandomApplyImpl(std::vector<TransformPtr> transforms, double p = 0.5);
  Tensor forward(const Tensor& input) override;
  Params params() const override { return {{"p", p_}}; }

 private:
  double p_;
};
EMBER_TRANSFORM_LIST(RandomApply);

// Applies one of its transforms, picked with probabilities proportional to p
// (uniform when p is empty).
class RandomChoiceImpl : public ComposeImpl {
 public:
  explicit RandomChoiceImpl(std::vector<TransformPtr> transforms, std::vector<double> p = {});
  Tensor forward(const Tensor& input) override;
  Params params() const override;

 private:
  std::vector<double> p_;
};
EMBER_TRANSFORM_LIST(RandomChoice);

// Applies all of its transforms in a random order.
class RandomOrderImpl : public ComposeImpl {
 public:
  explicit RandomOrderImpl(std::vector<TransformPtr> transforms);
  Tensor forward(const Tensor& input) override;
};
EMBER_TRANSFORM_LIST(RandomOrder);

// A user function as a transform. A function cannot be written to a file, so
// a Lambda is saved by name: loading one needs register_lambda(name, fn) with
// the same name first (an unnamed Lambda cannot be saved).
class LambdaImpl : public TransformImpl {
 public:
  using Fn = std::function<Tensor(const Tensor&)>;
  explicit LambdaImpl(Fn fn, std::string name = "");
  Tensor forward(const Tensor& input) override { return fn_(input); }
  Params params() const override;
  const std::string& lambda_name() const { return name_; }

 private:
  Fn fn_;
  std::string name_;
};
EMBER_TRANSFORM(Lambda);

// Makes `name` loadable: a saved Lambda of that name loads with `fn`.
void register_lambda(const std::string& name, LambdaImpl::Fn fn);

}  // namespace ember::transforms
