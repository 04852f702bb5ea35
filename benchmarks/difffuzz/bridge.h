#pragma once
// Between the case description and the two libraries: inputs built from the
// same bytes in Ember and libtorch, Ember results copied into libtorch
// tensors, and the comparison of two results.
#include <string>

#include "ops.h"

namespace difffuzz {

// Inputs of the case in each library: the storage values, then the view
// (sizes, strides, offset) as a leaf (requires_grad as the case says).
ETensors make_ember_inputs(const Case& c);
TTensors make_torch_inputs(const Case& c);
ember::Tensor make_ember_tensor(const TensorArg& t);
at::Tensor make_torch_tensor(const TensorArg& t);

// An Ember tensor's values (conjugate / negative bits resolved) in a new
// contiguous libtorch tensor of the same dtype.
at::Tensor ember_to_torch(const ember::Tensor& t);

// The message of an exception from either library, first line, without
// libtorch's backtrace.
std::string error_text(const std::exception& e);

// Tolerances of a result dtype (absolute: before the case's scale).
struct Tolerance {
  double rtol, atol;
};
Tolerance tolerance_for(at::ScalarType t);

// "" when the values agree: exact for bool/integers, else |e - t| <= atol +
// rtol * |t| elementwise, with NaN == NaN and infinities equal only to
// themselves. Otherwise how many differ and the first difference with both values.
std::string compare_values(const at::Tensor& ember_result, const at::Tensor& torch_result, double rtol, double atol);

// Output strides with size-0/1 dims zeroed (their strides do not matter to
// PyTorch's layout checks); "" when equal, else both.
std::string compare_layout(const ember::Tensor& ember_result, const at::Tensor& torch_result);

// Discards libtorch's warnings (deprecations printed once per process).
void silence_torch_warnings();
void set_threads(int n);

std::string shape_str(at::IntArrayRef s);

}  // namespace difffuzz
