#pragma once
// Reverse-mode automatic differentiation: backward, grad, anomaly detection.
// Tensor methods (requires_grad_, backward, grad, register_hook, ...) are in
// ember/core/tensor.h; custom functions in function.h; the functional API
// (jacobian, hessian, vjp, jvp, hvp, vhp) in functional.h.
#include <optional>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"

namespace ember::autograd {

// Accumulates d(sum_i <tensors[i], grad_tensors[i]>)/d(leaf) into each leaf's
// .grad (or only into `inputs` when given). grad_tensors may be empty (scalar
// tensors get ones). retain_graph defaults to create_graph.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

// The gradients of `outputs` w.r.t. `inputs`, returned instead of accumulated.
// An input the outputs do not depend on is an error unless allow_unused (then
// its gradient is undefined). is_grads_batched: each grad_outputs[i] has an
// extra leading dim B, and the results too: B vector-Jacobian products in one
// pass (see docs/autograd.md).
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                   bool create_graph = false, bool allow_unused = false, bool is_grads_batched = false);

// Anomaly detection: backward errors name the forward op of the failing node,
// and a NaN produced by a backward formula is an error naming that op.
void set_detect_anomaly(bool enabled);
bool is_anomaly_enabled();
class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard() : prev_(is_anomaly_enabled()) { set_detect_anomaly(true); }
  ~DetectAnomalyGuard() { set_detect_anomaly(prev_); }
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace ember::autograd
