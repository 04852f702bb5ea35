// Note [Custom functions]
// Function<T>::apply (function.h) is a template only for the user's types;
// the work is here. A call:
//  1. CustomCall's constructor takes the Tensor inputs' gradient edges (before
//     forward: an input modified in place must point at its old history) and
//     makes the node, whose AutogradContext forward receives. The node is
//     executable when grad mode is on (and no op is recording) and an input
//     requires grad; otherwise it only carries the context.
//  2. forward runs with grad mode off (function.h), as in PyTorch.
//  3. finish() processes the outputs as PyTorch's _wrap_outputs does:
//     - non-differentiable outputs (marked, integer, or the node is not
//       executable) get no history; inputs among them are returned as
//       detached aliases;
//     - dirty inputs (mark_dirty) get the node as their history: a view's base
//       gets CopySlices(old base, node) and the view reads its region of it
//       (autograd/view_history.cpp), the same graph an in-place op makes;
//     - an input returned unchanged is returned as a new alias (sharing the
//       memory) whose history is the node, so the input's own history is left
//       alone; it and outputs that are views of inputs are flagged so that
//       writing them in place is an error (AutogradMeta::custom_function_view);
//     - other outputs get the node as their history.
//     Then the tensors given to save_for_backward are saved: those that are
//     differentiable outputs as outputs (kept without history, so the node
//     does not own itself), the rest as inputs, with their versions checked
//     when backward unpacks them.
// CppNode::apply materializes undefined gradients as zeros (unless
// set_materialize_grads(false)), calls T::backward, and checks that it
// returned one gradient per forward argument (extra undefined ones are
// dropped, as in PyTorch).
#include "ember/autograd/function.h"

#include <cstdlib>
#include <unordered_set>

#include "autograd/autograd_meta.h"
#include "autograd/record.h"
#include "autograd/view_history.h"
#include "ember/ops/factories.h"

#if defined(__GNUG__)
#include <cxxabi.h>
#endif

namespace ember::autograd {

namespace detail {

namespace {

// "ns::(anonymous namespace)::MyFunction<ns::X>" -> "MyFunction<ns::X>".
std::string unqualified(const std::string& name) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(') ++depth;
    else if (c == '>' || c == ')') --depth;
    else if (c == ':' && name[i + 1] == ':' && depth == 0) start = i + 2;
  }
  return name.substr(start);
}

std::string type_name(const std::type_info& type) {
#if defined(__GNUG__)
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  if (status == 0 && demangled) {
    std::string name = unqualified(demangled);
    std::free(demangled);
    return name;
  }
  std::free(demangled);
#else
  (void)type;
#endif
  return "CppNode";
}

// A new tensor sharing t's memory and geometry, without history.
Tensor alias_of(const Tensor& t) {
  auto impl = make_intrusive<TensorImpl>(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset());
  impl->set_inference(t.is_inference());
  return Tensor(std::move(impl));
}

bool differentiable_dtype(DType d) { return is_floating_point(d) || is_complex(d); }

}  // namespace

class CppNode final : public Node {
 public:
  CppNode(const std::type_info& type, CustomBackward backward, std::vector<Edge> edges, std::vector<bool> is_var)
      : Node(std::move(edges)), type_(type), backward_(backward), is_var_(std::move(is_var)) {
    ctx.node_ = this;
  }

  std::string name() const override { return type_name(type_); }

  // Metadata of forward output i (default-constructed for an undefined one).
  void add_output(const Tensor& t) {
    if (t.defined()) {
      add_input_metadata(t);
    } else {
      input_metadata_.emplace_back();
    }
    output_defined_.push_back(t.defined());
  }

  variable_list apply(variable_list&& grads) override {
    variable_list in;
    in.reserve(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined() || !ctx.materialize_grads_ || !output_defined_[i]) {
        in.push_back(std::move(grads[i]));
      } else {
        const InputMetadata& md = input_metadata(i);
        in.push_back(zeros(md.sizes, TensorOptions(md.dtype).device(md.device)));
      }
    }
    variable_list out = backward_(&ctx, std::move(in));
    const size_t expected = is_var_.size();
    if (out.size() > expected) {
      bool all_undefined = true;
      for (size_t i = expected; i < out.size(); ++i) all_undefined = all_undefined && !out[i].defined();
      if (all_undefined) out.resize(expected);
    }
    EMBER_CHECK(out.size() == expected, "function ", name(), " returned an incorrect number of gradients (expected ",
                expected, ", got ", out.size(), "): backward must return one gradient per forward argument "
                "(undefined for non-Tensor arguments)");
    variable_list results;
    results.reserve(num_outputs());
    for (size_t i = 0; i < out.size(); ++i) {
      if (!is_var_[i]) {
        EMBER_CHECK(!out[i].defined(), "function ", name(), " returned a gradient that is defined at position ",
                    i + 1, ", but the corresponding forward input is not a Tensor");
        continue;
      }
      results.push_back(std::move(out[i]));
    }
    return results;
  }

  void release_variables() override {
    ctx.saved_.clear();
    ctx.has_freed_buffers_ = true;
  }

  AutogradContext ctx;

 private:
  const std::type_info& type_;
  CustomBackward backward_;
  std::vector<bool> is_var_;
  std::vector<char> output_defined_;
};

CustomCall::CustomCall(const std::type_info& type, CustomBackward backward, variable_list inputs,
                       std::vector<bool> is_var)
    : inputs_(std::move(inputs)) {
  bool any = false;
  if (is_recording())
    for (const Tensor& t : inputs_) any = any || (t.defined() && t.requires_grad());
  executable_ = any;
  std::vector<Edge> edges(inputs_.size());
  if (executable_)
    for (size_t i = 0; i < inputs_.size(); ++i) edges[i] = gradient_edge(inputs_[i]);
  node_ = std::make_shared<CppNode>(type, backward, std::move(edges), std::move(is_var));
}

CustomCall::~CustomCall() = default;

AutogradContext* CustomCall::ctx() const { return &node_->ctx; }

variable_list CustomCall::finish(variable_list outputs) {
  CppNode& node = *node_;
  AutogradContext& ctx = node.ctx;
  const std::string name = node.name();

  std::unordered_set<const TensorImpl*> inputs, dirty, non_differentiable, returned;
  std::unordered_set<const StorageImpl*> input_storages;
  for (const Tensor& t : inputs_)
    if (t.defined()) {
      inputs.insert(t.impl());
      input_storages.insert(t.storage().get());
    }
  for (const Tensor& t : ctx.non_differentiable_)
    if (t.defined()) non_differentiable.insert(t.impl());
  for (const Tensor& t : outputs)
    if (t.defined()) returned.insert(t.impl());
  for (const Tensor& t : ctx.dirty_) {
    if (!t.defined()) continue;
    EMBER_CHECK(returned.count(t.impl()), name, ": some elements marked as dirty during the forward method were "
                "not returned as output. The inputs that are modified inplace must all be outputs of the Function.");
    dirty.insert(t.impl());
  }
  for (const Tensor& t : ctx.dirty_)
    if (t.defined()) t.bump_version();
  ctx.dirty_.clear();
  ctx.non_differentiable_.clear();

  std::vector<char> differentiable(outputs.size(), 0);
  std::unordered_set<const TensorImpl*> seen;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& var = outputs[i];
    if (executable_) node.add_output(var);
    if (!var.defined()) continue;
    const TensorImpl* impl = var.impl();
    const bool is_input = inputs.count(impl) > 0;
    const bool is_modified = dirty.count(impl) > 0;
    const bool repeated = !seen.insert(impl).second;
    const bool is_diff = executable_ && !non_differentiable.count(impl) && differentiable_dtype(var.dtype());
    const auto nr = static_cast<uint32_t>(i);
    if (!is_diff) {
      if (!var.requires_grad()) {
        if (is_input && !is_modified) var = alias_of(var);
      } else if (is_input) {
        var = var.detach();
      } else if (!var.is_view()) {
        var.detach_();
      }
      continue;
    }
    differentiable[i] = 1;
    if (is_modified && !repeated) {
      check_inplace(var, name.c_str());
      if (var.is_view()) {
        rebase_view_history(var, gradient_edge(Tensor(var.impl()->view_base())), Edge{node_, nr});
      } else {
        set_history(var, node_, nr);
      }
      continue;
    }
    if (is_input || repeated) var = alias_of(var);
    set_history(var, node_, nr);
    if (input_storages.count(var.storage().get())) meta_of(var)->custom_function_view = true;
  }

  if (executable_) {
    ctx.saved_.reserve(ctx.to_save_.size());
    for (const Tensor& t : ctx.to_save_) {
      if (!t.defined()) {
        ctx.saved_.emplace_back();
        continue;
      }
      // A differentiable output is saved as an output: without its history
      // (the node would own itself otherwise).
      std::optional<uint32_t> output_nr;
      for (size_t j = 0; j < outputs.size() && !output_nr; ++j)
        if (differentiable[j] && outputs[j].defined() && outputs[j].impl() == t.impl())
          output_nr = static_cast<uint32_t>(j);
      ctx.saved_.emplace_back(t, output_nr.has_value(), output_nr.value_or(0));
    }
  }
  ctx.to_save_.clear();
  return outputs;
}

}  // namespace detail

// ---- AutogradContext ----

AutogradContext::AutogradContext() = default;
AutogradContext::~AutogradContext() = default;

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

void AutogradContext::mark_dirty(const variable_list& inputs) { dirty_ = inputs; }

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  non_differentiable_.insert(non_differentiable_.end(), outputs.begin(), outputs.end());
}

void AutogradContext::set_materialize_grads(bool value) { materialize_grads_ = value; }

variable_list AutogradContext::get_saved_variables() const {
  EMBER_CHECK(!has_freed_buffers_, node_->name(),
              ": trying to backward through the graph a second time (or to access saved tensors after they were "
              "freed). Saved values are freed when backward() or autograd::grad() runs; pass retain_graph=true "
              "to backward through the graph again.");
  variable_list out;
  out.reserve(saved_.size());
  for (const SavedVariable& v : saved_) out.push_back(v.defined() ? v.unpack(*node_) : Tensor());
  return out;
}

bool AutogradContext::needs_input_grad(size_t index) const {
  EMBER_CHECK(index < node_->num_outputs(), "needs_input_grad: index ", index, " is out of range: the function has ",
              node_->num_outputs(), " Tensor inputs");
  return node_->should_compute_output(index);
}

}  // namespace ember::autograd
