#pragma once
// torch::data::transforms: what `.map(...)` applies to a dataset's batches,
// as libtorch's: per-example Transforms (TensorTransform, Normalize, Lambda,
// TensorLambda), batch transforms (BatchTransform, BatchLambda) and the
// collation Stack<>, which turns a vector of Examples into one Example of
// stacked tensors.
#include <functional>
#include <utility>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape.h"
#include "ember/torch/data/example.h"

namespace torch::data::transforms {

template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

// A transform of single examples, applied to each example of a batch.
template <class Input, class Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;
  virtual Output apply(Input input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output;
    output.reserve(input_batch.size());
    for (auto& input : input_batch) output.push_back(apply(std::move(input)));
    return output;
  }
};

template <class InputBatch, class OutputBatch = InputBatch>
class BatchLambda : public BatchTransform<InputBatch, OutputBatch> {
 public:
  using FunctionType = std::function<OutputBatch(InputBatch)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  OutputBatch apply_batch(InputBatch input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

template <class Input, class Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// A transform of an Example's data tensor (the target passes through).
template <class Target = ember::Tensor>
class TensorTransform : public Transform<Example<ember::Tensor, Target>, Example<ember::Tensor, Target>> {
 public:
  using E = Example<ember::Tensor, Target>;
  virtual ember::Tensor operator()(ember::Tensor input) = 0;
  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <class Target = ember::Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<ember::Tensor(ember::Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  ember::Tensor operator()(ember::Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// (data - mean) / stddev per channel: mean and stddev hold one value, or one
// per channel of a [C, ...] data tensor (libtorch's Normalize, float32).
template <class Target = ember::Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ember::ArrayRef<double> mean, ember::ArrayRef<double> stddev)
      : mean(ember::tensor(mean.vec(), ember::kFloat32).unsqueeze(1).unsqueeze(2)),
        stddev(ember::tensor(stddev.vec(), ember::kFloat32).unsqueeze(1).unsqueeze(2)) {}
  ember::Tensor operator()(ember::Tensor input) override { return input.sub(mean).div(stddev); }
  ember::Tensor mean, stddev;
};

// Collation: a batch transform from a vector of examples to one batch.
template <class BatchType, class ExampleVector = std::vector<BatchType>>
using Collation = BatchTransform<ExampleVector, BatchType>;

template <class T = Example<>>
struct Stack;

// Stacks data and targets along a new first dim: N examples with data [C, H, W]
// give data [N, C, H, W] (and targets [N, ...]).
template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<ember::Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {ember::stack(data), ember::stack(targets)};
  }
};

template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<ember::Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    return ember::stack(data);
  }
};

}  // namespace torch::data::transforms
