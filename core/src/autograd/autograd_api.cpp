// autograd::backward / autograd::grad / anomaly mode.
#include <atomic>

#include "autograd/engine.h"
#include "ember/autograd/autograd.h"

namespace ember::autograd {

namespace {
std::atomic<bool> g_anomaly{false};
}

void set_detect_anomaly(bool enabled) { g_anomaly.store(enabled); }
bool is_anomaly_enabled() { return g_anomaly.load(std::memory_order_relaxed); }

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  run_backward(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, inputs, true);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused, bool is_grads_batched) {
  EMBER_CHECK(!inputs.empty(), "autograd::grad: inputs must not be empty");
  variable_list result =
      run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, inputs, false,
                   is_grads_batched);
  if (!allow_unused)
    for (size_t i = 0; i < result.size(); ++i)
      EMBER_CHECK(result[i].defined(), "autograd::grad: input ", i,
                  " appears to not have been used in the graph; pass allow_unused=true if this is intended");
  return result;
}

}  // namespace ember::autograd
