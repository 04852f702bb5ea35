#pragma once
// torch::data::Example: one sample (data and target), as libtorch's.
#include <utility>

#include "ember/core/tensor.h"

namespace torch::data {

// The target of an Example that has none (Example<Tensor, NoTarget>).
struct NoTarget {};

template <class Data = ember::Tensor, class Target = ember::Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;
  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};

template <class Data>
struct Example<Data, NoTarget> {
  using DataType = Data;
  using TargetType = NoTarget;
  Example() = default;
  Example(Data data) : data(std::move(data)) {}  // NOLINT(google-explicit-constructor)
  operator Data&() { return data; }              // NOLINT(google-explicit-constructor)
  operator const Data&() const { return data; }  // NOLINT(google-explicit-constructor)
  Data data;
};

using TensorExample = Example<ember::Tensor, NoTarget>;

}  // namespace torch::data
