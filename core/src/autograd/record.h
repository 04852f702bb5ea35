#pragma once
// How an op records its backward: the one internal API every differentiable
// op uses (Note [Recording an op] in record.cpp).
//
//   Tensor exp(const Tensor& self) {
//     autograd::OpRecorder rec("exp", {self});
//     Tensor out = ...forward kernels...;
//     if (rec) rec.record(out, [r = rec.save_output(out)](autograd::BackwardContext& c) {
//       return autograd::variable_list{c.grads[0] * c.unpack(r).conj()};
//     });
//     return out;
//   }
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"

namespace ember::autograd {

class LambdaNode;

// A tensor kept for backward (Note [Saved tensors and reference cycles] in
// record.cpp). Leaves that require grad are kept as they are; other tensors
// are kept as an alias without history (same memory and version counter),
// with the history they had when saved (an input's grad_fn, or for an
// output the owner node), which unpack gives back under grad mode. The
// version counter is checked on unpack: a saved tensor modified in place
// since is an error.
class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output, uint32_t output_nr = 0);
  bool defined() const { return data_.defined(); }
  // `owner` is the node that saved it (it becomes an output's grad_fn).
  Tensor unpack(const Node& owner) const;

 private:
  Tensor data_;
  // Inputs: their grad_fn when saved (null for tensors without history).
  std::shared_ptr<Node> grad_fn_;
  uint64_t version_ = 0;
  // Outputs: the output's number in the owner; inputs: in grad_fn_.
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool is_leaf_ = false;  // a leaf that requires grad: data_ is the tensor itself
};

// What a backward formula sees.
struct BackwardContext {
  // Gradients of the forward outputs; zeros where none flowed.
  variable_list& grads;
  const Node& node;
  // Whether the gradient of forward input i is needed.
  bool needs(size_t i) const { return node.should_compute_output(i); }
  Tensor unpack(const SavedVariable& v) const { return v.unpack(node); }
};
using BackwardFn = std::function<variable_list(BackwardContext&)>;

// A node whose backward is a lambda (the formula, written with Tensor ops so
// that with create_graph the backward records a graph of its own).
class LambdaNode final : public Node {
 public:
  // node_name: the name when it is not backward_name(op).
  LambdaNode(const char* op, std::vector<Edge> edges, BackwardFn fn, bool has_saved,
             const char* node_name = nullptr);
  std::string name() const override;
  std::string forward_op() const override { return op_; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;
  bool supports_batched_grads() const override { return batched_ok_; }
  void set_supports_batched_grads(bool v) { batched_ok_ = v; }

 private:
  bool batched_ok_ = false;
  const char* op_;
  const char* node_name_;
  BackwardFn fn_;
  bool has_saved_;
  bool released_ = false;
};

// "index_select" -> "IndexSelectBackward0".
std::string backward_name(const char* op);

// True when ops run now record their backward (grad mode on and not inside
// another op's forward).
bool is_recording();

// RAII: records one op. Active when grad mode is on and any input requires
// grad; while active, recording is suspended so that the ops the forward uses
// internally record nothing.
class OpRecorder {
 public:
  OpRecorder(const char* op, std::initializer_list<std::reference_wrapper<const Tensor>> inputs);
  OpRecorder(const char* op, const std::vector<Tensor>& inputs);
  ~OpRecorder();
  OpRecorder(const OpRecorder&) = delete;
  OpRecorder& operator=(const OpRecorder&) = delete;

  explicit operator bool() const { return active_; }
  bool active() const { return active_; }
  // Whether input i's gradient is needed (its edge is valid).
  bool needs(size_t i) const { return i < edges_.size() && edges_[i].is_valid(); }

  SavedVariable save(const Tensor& input);
  // Declares the formula correct for batched gradients (an extra leading dim:
  // broadcasting elementwise ops only, no reshapes or reductions).
  void allow_batched_grads() { batched_ok_ = true; }
  // Saves only when `needed` (e.g. the other input's gradient is wanted).
  SavedVariable save_if(bool needed, const Tensor& input) { return needed ? save(input) : SavedVariable(); }
  SavedVariable save_output(const Tensor& output, uint32_t output_nr = 0);

  // Makes `outputs` (floating point or complex ones; others are left alone)
  // the outputs of a new node running `fn`. Returns the node.
  std::shared_ptr<Node> record(const Tensor& output, BackwardFn fn);
  std::shared_ptr<Node> record(std::initializer_list<std::reference_wrapper<const Tensor>> outputs,
                               BackwardFn fn);
  std::shared_ptr<Node> record(const std::vector<Tensor>& outputs, BackwardFn fn);

 private:
  void start();
  std::shared_ptr<Node> record_outputs(const Tensor* const* outputs, size_t n, BackwardFn fn);

  const char* op_;
  bool active_ = false;
  bool suspended_here_ = false;
  bool batched_ok_ = false;
  int saved_ = 0;
  std::vector<Edge> edges_;
};

// RAII: suspends recording (ops compute plain tensors). Unlike NoGradGuard it
// leaves the user's grad mode alone, so views made inside still track their base.
class SuspendRecording {
 public:
  SuspendRecording();
  ~SuspendRecording();
  SuspendRecording(const SuspendRecording&) = delete;
  SuspendRecording& operator=(const SuspendRecording&) = delete;

 private:
  bool prev_;
};

// ---- in-place ops ----
// Whether an in-place op writing `self` (reading `others`) must be recorded.
bool inplace_records(const Tensor& self, std::initializer_list<std::reference_wrapper<const Tensor>> others = {});
// Errors for in-place writes autograd cannot allow: a leaf that requires grad,
// a view of one, an inference tensor outside InferenceMode.
void check_inplace(const Tensor& self, const char* op);
// The recorded in-place path: `result` = the out-of-place op's (recorded)
// value, written into self with copy_ (which rebases self's history, through
// its base when self is a view). Checks shape and dtype as the kernel would.
Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op);

// out= variants do not record: an error when recording would be needed.
void check_out_arguments(const char* op, const Tensor& out,
                         std::initializer_list<std::reference_wrapper<const Tensor>> inputs);

// grad reduced to `sizes` (the inverse of broadcasting).
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

}  // namespace ember::autograd
