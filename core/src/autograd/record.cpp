// Note [Recording an op]
// A differentiable op opens an OpRecorder with its tensor inputs. The
// recorder is active only when grad mode is on and some input requires grad;
// the inactive check is a few loads, so ops pay nothing for autograd when no
// one needs it. While active, the recorder takes the inputs' gradient edges
// (before the forward runs: an in-place op must point at self's old history)
// and suspends recording, so the ops the forward uses internally record
// nothing. After the forward, record() makes one LambdaNode whose lambda is
// the op's backward formula, written with Tensor ops: under create_graph the
// engine runs formulas with recording on, and double backward comes for free.
#include "autograd/record.h"

#include <cctype>

#include "autograd/autograd_meta.h"
#include "autograd/view_history.h"
#include "ember/ops/factories.h"
#include "ember/ops/promotion.h"
#include "ember/ops/reduce.h"

namespace ember::autograd {

namespace detail {
bool set_recording_suspended(bool v);  // grad_mode.cpp
}

// ---- SavedVariable ----

// Note [Saved tensors and reference cycles]
// A node that kept a saved tensor itself (its TensorImpl) would own whatever
// history that tensor gets later, and an in-place write can give it a history
// that leads back to the node:
//   y = h.sin();  h.copy_(y);   // h's grad_fn: CopyBackwards -> SinBackward0,
//                               // which saved h: a cycle, never freed
// The same goes for k.mul_(k), for a plain tensor written with a value that
// saved it (buf.copy_(x * buf)), and for views, whose base is written too (a
// saved view holds its base). Such a saved tensor is stale anyway (the write
// bumped the shared version counter, so unpack fails), but the cycle stays.
// So a node keeps an alias of the saved tensor: the same memory and version
// counter, no history and no view base, plus the grad_fn the tensor had when
// it was saved (made before the node, so it cannot lead back to it). unpack
// under grad mode (create_graph) gives the alias that history back. Outputs
// are kept the same way, their grad_fn being the owner node (not held: that
// is the other cycle). Leaves that require grad are kept as they are: a
// gradient must reach their accumulator (which they hold only weakly), and
// an in-place write to them while recording is an error, so they get no new
// history.

namespace {
// The same data as t (memory, geometry, version counter) without history.
Tensor history_free_alias(const Tensor& t) {
  auto impl = make_intrusive<TensorImpl>(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset());
  impl->set_inference(t.is_inference());
  impl->set_conj(t.is_conj());
  impl->set_neg(t.is_neg());
  // A number wrapped into a tensor (x * 2.5) keeps its place in type promotion.
  impl->set_wrapped_number(t.impl()->is_wrapped_number());
  return Tensor(std::move(impl));
}
}  // namespace

SavedVariable::SavedVariable(const Tensor& t, bool is_output, uint32_t output_nr)
    : version_(t.defined() ? t._version() : 0), output_nr_(output_nr), is_output_(is_output) {
  if (!t.defined()) return;
  EMBER_CHECK(!t.is_inference() || is_inference_mode_enabled(),
              "autograd: inference tensors cannot be saved for backward (", t.toString(),
              " was made under InferenceMode). Make a clone() of it outside InferenceMode to use it in autograd.");
  if (!is_output) {
    grad_fn_ = grad_fn_of(t);
    if (grad_fn_) {
      output_nr_ = meta_of(t)->output_nr;
    } else if (const AutogradMeta* m = meta_of(t); m && m->requires_grad) {
      is_leaf_ = true;
      data_ = t;
      return;
    }
  }
  data_ = history_free_alias(t);
}

Tensor SavedVariable::unpack(const Node& owner) const {
  EMBER_CHECK(data_.defined(), owner.name(), ": a saved tensor was already freed");
  if (data_._version() != version_) {
    std::string what;
    if (is_output_) what = ember::detail::concat("output ", output_nr_, " of ", owner.name());
    else if (grad_fn_) what = ember::detail::concat("output ", output_nr_, " of ", grad_fn_->name());
    else what = "a leaf or an input that does not require grad";
    EMBER_FAIL("one of the variables needed for gradient computation has been modified by an inplace operation: [",
               data_.toString(), "], which is ", what, ", is at version ", data_._version(), "; expected version ",
               version_, " instead (needed by ", owner.name(), ", recorded by ", owner.forward_op(),
               "). Hint: replace the in-place operation by an out-of-place one, or clone() the tensor before modifying it.");
  }
  if (is_leaf_ || !is_grad_enabled()) return data_;
  std::shared_ptr<Node> fn =
      is_output_ ? std::const_pointer_cast<Node>(owner.shared_from_this()) : grad_fn_;
  if (!fn) return data_;
  // Under create_graph the tensor must lead back to its history again.
  Tensor t = history_free_alias(data_);
  set_history(t, std::move(fn), output_nr_);
  return t;
}

// ---- LambdaNode ----

std::string backward_name(const char* op) {
  std::string name;
  bool upper = true;
  for (const char* p = op; *p; ++p) {
    if (*p == '_') {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(*p))) : *p;
    upper = false;
  }
  return name + "Backward0";
}

LambdaNode::LambdaNode(const char* op, std::vector<Edge> edges, BackwardFn fn, bool has_saved,
                       const char* node_name)
    : Node(std::move(edges)), op_(op), node_name_(node_name), fn_(std::move(fn)), has_saved_(has_saved) {}

std::string LambdaNode::name() const { return node_name_ ? node_name_ : backward_name(op_); }

variable_list LambdaNode::apply(variable_list&& grads) {
  EMBER_CHECK(!released_, name(),
              ": trying to backward through the graph a second time (or to use saved tensors after they "
              "were freed). Saved values are freed when backward() or autograd::grad() runs; pass "
              "retain_graph=true to backward through the graph again.");
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined()) grads[i] = zeros(input_metadata(i).sizes, TensorOptions(input_metadata(i).dtype).device(input_metadata(i).device));
  BackwardContext c{grads, *this};
  variable_list out = fn_(c);
  EMBER_CHECK(out.size() <= num_outputs(), name(), ": backward returned ", out.size(),
              " gradients for ", num_outputs(), " inputs");
  out.resize(num_outputs());
  return out;
}

void LambdaNode::release_variables() {
  if (!has_saved_) return;  // nothing to free: running it again is fine
  fn_ = nullptr;
  released_ = true;
}

// ---- OpRecorder ----

OpRecorder::OpRecorder(const char* op, std::initializer_list<std::reference_wrapper<const Tensor>> inputs)
    : op_(op) {
  if (!is_recording()) return;
  bool any = false;
  for (const Tensor& t : inputs) any = any || (t.defined() && requires_grad(t));
  if (!any) return;
  edges_.reserve(inputs.size());
  for (const Tensor& t : inputs) edges_.push_back(gradient_edge(t));
  start();
}

OpRecorder::OpRecorder(const char* op, const std::vector<Tensor>& inputs) : op_(op) {
  if (!is_recording()) return;
  bool any = false;
  for (const Tensor& t : inputs) any = any || (t.defined() && requires_grad(t));
  if (!any) return;
  edges_.reserve(inputs.size());
  for (const Tensor& t : inputs) edges_.push_back(gradient_edge(t));
  start();
}

void OpRecorder::start() {
  active_ = true;
  suspended_here_ = !detail::set_recording_suspended(true);
}

OpRecorder::~OpRecorder() {
  if (suspended_here_) detail::set_recording_suspended(false);
}

SavedVariable OpRecorder::save(const Tensor& input) {
  ++saved_;
  return SavedVariable(input, false);
}

SavedVariable OpRecorder::save_output(const Tensor& output, uint32_t output_nr) {
  ++saved_;
  return SavedVariable(output, true, output_nr);
}

std::shared_ptr<Node> OpRecorder::record_outputs(const Tensor* const* outputs, size_t n, BackwardFn fn) {
  EMBER_CHECK(active_, op_, ": record() called on an inactive recorder");
  if (suspended_here_) {
    detail::set_recording_suspended(false);
    suspended_here_ = false;
  }
  active_ = false;
  auto node = std::make_shared<LambdaNode>(op_, std::move(edges_), std::move(fn), saved_ > 0);
  node->set_supports_batched_grads(batched_ok_);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& o = *outputs[i];
    node->add_input_metadata(o);
    if (is_floating_point(o.dtype()) || is_complex(o.dtype())) set_history(o, node, static_cast<uint32_t>(i));
  }
  return node;
}

std::shared_ptr<Node> OpRecorder::record(const Tensor& output, BackwardFn fn) {
  const Tensor* p = &output;
  return record_outputs(&p, 1, std::move(fn));
}

std::shared_ptr<Node> OpRecorder::record(std::initializer_list<std::reference_wrapper<const Tensor>> outputs,
                                         BackwardFn fn) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : outputs) ptrs.push_back(&t);
  return record_outputs(ptrs.data(), ptrs.size(), std::move(fn));
}

std::shared_ptr<Node> OpRecorder::record(const std::vector<Tensor>& outputs, BackwardFn fn) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : outputs) ptrs.push_back(&t);
  return record_outputs(ptrs.data(), ptrs.size(), std::move(fn));
}

// ---- in-place ops ----

bool inplace_records(const Tensor& self, std::initializer_list<std::reference_wrapper<const Tensor>> others) {
  if (!is_recording()) return false;
  if (requires_grad(self)) return true;
  for (const Tensor& t : others)
    if (t.defined() && requires_grad(t)) return true;
  return false;
}

void check_inplace(const Tensor& self, const char* op) {
  EMBER_CHECK(!self.is_inference() || is_inference_mode_enabled(), op,
              ": in-place update to an inference tensor outside InferenceMode is not allowed");
  if (!is_recording()) return;
  const TensorImpl* impl = self.impl();
  const TensorImpl* leaf = impl->view_base() ? impl->view_base().get() : impl;
  if (const AutogradMeta* vm = impl->autograd_meta(); vm && !vm->multi_output_view_fn.empty())
    EMBER_FAIL(op, ": Output ", vm->multi_output_view_nr, " of ", vm->multi_output_view_fn,
               " is a view and is being modified inplace. This view is the output of a function that returns "
               "multiple views. Such functions do not allow the output views to be modified inplace. You should "
               "replace the inplace operation by an out-of-place one.");
  const AutogradMeta* m = leaf->autograd_meta();
  if (m && m->requires_grad && !m->grad_fn)
    EMBER_FAIL(op, ": a ", impl->view_base() ? "view of a leaf Variable" : "leaf Variable",
               " that requires grad is being used in an in-place operation (", self.toString(),
               "). Use an out-of-place op, or write under NoGradGuard.");
  for (const AutogradMeta* v : std::initializer_list<const AutogradMeta*>{impl->autograd_meta(), m})
    if (v && v->custom_function_view && v->grad_fn)
      EMBER_FAIL(op, ": output ", v->output_nr, " of ", v->grad_fn->name(),
                 " is a view of one of that custom Function's inputs (made inside forward, or an input "
                 "returned as-is) and is being modified in place (", self.toString(),
                 "). This is forbidden: the in-place rebase would bypass the custom backward and give wrong "
                 "gradients. clone() the output of the custom Function first.");
}

Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op) {
  check_inplace(self, op);
  EMBER_CHECK(result.sizes() == self.sizes(), op, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", result.sizes());
  EMBER_CHECK(can_cast(result.dtype(), self.dtype()), op, ": result type ", result.dtype(),
              " can't be cast to the desired output type ", self.dtype());
  self.copy_(result);
  return self;
}

void check_out_arguments(const char* op, const Tensor& out,
                         std::initializer_list<std::reference_wrapper<const Tensor>> inputs) {
  if (!is_recording()) return;
  bool any = out.defined() && requires_grad(out);
  for (const Tensor& t : inputs) any = any || (t.defined() && requires_grad(t));
  EMBER_CHECK(!any, op, "_out: functions with out=... arguments don't support automatic differentiation, "
              "but one of the arguments requires grad");
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  EMBER_CHECK(lead >= 0, "sum_to: gradient of shape ", grad.sizes(), " cannot be reduced to shape ", sizes);
  DimVector dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t g = grad.size(lead + static_cast<int64_t>(i));
    if (sizes[i] == 1 && g != 1) dims.push_back(lead + static_cast<int64_t>(i));
    else EMBER_CHECK(sizes[i] == g, "sum_to: gradient of shape ", grad.sizes(), " cannot be reduced to shape ", sizes);
  }
  Tensor r = dims.empty() ? grad : grad.sum(dims, true);
  return lead > 0 ? r.reshape(sizes) : r;
}

}  // namespace ember::autograd
