#pragma once
// The op table: each entry generates a case and runs it in Ember and in
// libtorch. The run functions receive the inputs already built in their
// library (bridge.cpp) and return the op's outputs; they never catch: an
// exception is the op's answer ("raises"), compared like a value.
#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "fuzz_case.h"
#include "gen.h"

namespace difffuzz {

using ETensors = std::vector<ember::Tensor>;
using TTensors = std::vector<at::Tensor>;

enum OpFlag : unsigned {
  kGrad = 1,          // differentiable: gradients of floating/complex inputs are compared
  kInPlace = 2,       // writes into its first input (which never requires grad)
  kTiedIndices = 4,   // output 1 holds indices into input 0 along p.dim whose
                      // choice among equal values is unspecified: compared by
                      // the values they select, not as numbers
  kNoLayout = 8,      // output strides are not compared (views of a storage the op chose)
};

struct OpDef {
  std::string name;
  std::function<void(Gen&, Case&)> gen;
  std::function<ETensors(const Case&, ETensors&)> ember;
  std::function<TTensors(const Case&, TTensors&)> torch;
  unsigned flags = 0;
  std::string group;  // elementwise, reduce, shape, index, linalg, nn
  // Cases on which libtorch 1.13 crashes instead of raising (e.g. INT_MIN % -1
  // traps in its integer division): only Ember runs them.
  std::function<bool(const Case&)> torch_hazard = nullptr;
};

// Every op, in a fixed order (the order is part of what a seed replays).
const std::vector<OpDef>& op_table();

// Each family file appends its ops.
void add_elementwise_ops(std::vector<OpDef>& ops);
void add_reduce_ops(std::vector<OpDef>& ops);
void add_shape_index_ops(std::vector<OpDef>& ops);
void add_nn_linalg_ops(std::vector<OpDef>& ops);

// ---- conversions shared by the op files (bridge.cpp) ----
at::ScalarType to_torch(DType t);
DType to_ember(at::ScalarType t);
c10::optional<at::ScalarType> to_torch(const std::optional<DType>& t);
ember::Scalar to_ember(const ScalarArg& s);
c10::Scalar to_torch(const ScalarArg& s);

}  // namespace difffuzz

// Lambdas of the op table: `E { ... }` runs in Ember, `T { ... }` in libtorch;
// both see the case `c` and the inputs `x`.
#define DF_E [](const ::difffuzz::Case& c, ::difffuzz::ETensors& x) -> ::difffuzz::ETensors
#define DF_T [](const ::difffuzz::Case& c, ::difffuzz::TTensors& x) -> ::difffuzz::TTensors
