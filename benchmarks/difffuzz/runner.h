#pragma once
// Runs one case in both libraries and compares: raised-or-not, dtype, shape,
// values, requires_grad and the gradient of a random weighted sum of the
// outputs with respect to every input that requires grad; strides separately.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ops.h"

namespace difffuzz {

struct Mismatch {
  // raise (one library raised), dtype, shape, values, count (number of
  // outputs), requires_grad, grad_raise, grad (values of a gradient), layout
  std::string kind;
  int output = -1;  // output (or, for grad, input) index
  std::string detail;
  std::string known;  // the known difference that explains it ("" when new)
  // On every element, Ember's result (or gradient) is within tolerance of, or
  // at least as close as libtorch's to, libtorch's result on the inputs
  // widened to float64 / complex128 and made contiguous (the referee).
  bool ember_closer = false;
};

struct CaseResult {
  Case c;
  bool ember_raised = false, torch_raised = false;
  std::string ember_error, torch_error;
  // libtorch raises "not implemented" for a dtype Ember supports: not
  // compared, counted apart.
  bool ember_extension = false;
  // libtorch would crash on the case (OpDef::torch_hazard): only Ember ran.
  bool torch_skipped = false;
  std::vector<Mismatch> mismatches;  // everything but layout
  std::vector<Mismatch> layout;      // output strides (a warning category)
  // Printed by --replay: the outputs of both, for a human.
  std::vector<std::string> ember_outputs, torch_outputs, ember_grads, torch_grads;
  // For the known-differences predicates: libtorch's inputs (before the op)
  // and outputs.
  TTensors torch_inputs, torch_outputs_t;
  // Seconds: Ember forward, libtorch forward, Ember backward, libtorch backward.
  double seconds[4] = {0, 0, 0, 0};
  bool new_mismatch() const;
  bool known_only() const;
};

struct RunConfig {
  uint64_t seed = 1;
  Limits limits;
  std::vector<size_t> ops;  // indices into op_table() that cases draw from
  bool keep_outputs = false;
};

// The op case `index` of a run draws, and the case itself.
size_t op_for_case(const RunConfig& cfg, uint64_t index);
// Called with each case once it is generated, before anything runs (the
// crash report prints it).
extern std::function<void(const Case&)> on_case_generated;
CaseResult run_case(const RunConfig& cfg, uint64_t index);

}  // namespace difffuzz
