#pragma once
// Custom autograd functions, as PyTorch's C++ frontend (torch::autograd::Function):
//
//   struct MulConst : autograd::Function<MulConst> {
//     static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double k) {
//       ctx->saved_data["k"] = k;
//       return x * k;
//     }
//     static autograd::variable_list backward(autograd::AutogradContext* ctx,
//                                             autograd::variable_list grad_outputs) {
//       return {grad_outputs[0] * ctx->saved_data["k"].toDouble(), Tensor()};
//     }
//   };
//   Tensor y = MulConst::apply(x, 2.0);
//
// Tensor arguments (each element of a std::vector<Tensor> / TensorList
// argument too) are the node's inputs; other arguments are passed through.
// backward gets one gradient per forward output and returns one per forward
// argument (undefined for non-Tensor arguments and inputs that need none).
// forward runs with grad mode off, so the ops it uses record nothing.
// See docs/autograd.md, "Custom functions".
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/core/array_ref.h"
#include "ember/core/ivalue.h"

namespace ember::autograd {

class SavedVariable;  // core/src/autograd/record.h

// A value kept in AutogradContext::saved_data: ember::IValue (None, a Tensor,
// a double, an int64, a bool, an int list, a string, ...), whose c10-style
// accessors (toDouble, toIntVector, ...) throw ember::Error when the value
// holds another type. The name autograd::IValue stays for existing code.
using IValue = ember::IValue;

namespace detail {
class CustomCall;
class CppNode;
}  // namespace detail

// What forward and backward of a custom function share (one per call).
class AutogradContext {
 public:
  AutogradContext();
  ~AutogradContext();
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  // Values for backward. Tensors kept here are kept as they are (no version
  // check; an output kept here makes a reference cycle): prefer save_for_backward.
  std::unordered_map<std::string, IValue> saved_data;

  // Tensors (inputs or outputs of forward; undefined ones are allowed) that
  // backward reads with get_saved_variables(). Called in forward; the tensors
  // are saved when forward returns, with their version at that point.
  void save_for_backward(variable_list to_save);
  // Inputs that forward modified in place; each must be returned as an output.
  // Their history is rebased onto this function's node (a leaf that requires
  // grad, or a view of one, is an error).
  void mark_dirty(const variable_list& inputs);
  // Outputs that are not differentiable: they do not require grad and their
  // gradient in backward is zeros (or undefined without materialized grads).
  void mark_non_differentiable(const variable_list& outputs);
  // true (default): undefined output gradients reach backward as zeros.
  void set_materialize_grads(bool value);

  // The tensors given to save_for_backward. Throws when one of them was
  // modified in place since, or after the graph was freed by a backward pass.
  variable_list get_saved_variables() const;
  // Whether the gradient of Tensor input `index` (counting Tensor inputs only,
  // each element of a Tensor list argument) is needed.
  bool needs_input_grad(size_t index) const;

 private:
  friend class detail::CustomCall;
  friend class detail::CppNode;

  Node* node_ = nullptr;
  variable_list to_save_;
  std::vector<SavedVariable> saved_;
  variable_list dirty_;
  variable_list non_differentiable_;
  bool materialize_grads_ = true;
  bool has_freed_buffers_ = false;
};

namespace detail {
using CustomBackward = variable_list (*)(AutogradContext*, variable_list);

// Arguments of apply(): Tensors are inputs, the rest is passed through.
inline void extract_variables(variable_list& vars, std::vector<bool>& is_var, const Tensor& t) {
  is_var.push_back(true);
  vars.push_back(t);
}
inline void extract_variables(variable_list& vars, std::vector<bool>& is_var, const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) extract_variables(vars, is_var, t);
}
inline void extract_variables(variable_list& vars, std::vector<bool>& is_var, ArrayRef<Tensor> ts) {
  for (const Tensor& t : ts) extract_variables(vars, is_var, t);
}
inline void extract_variables(variable_list& vars, std::vector<bool>& is_var, const std::optional<Tensor>& t) {
  if (t && t->defined()) extract_variables(vars, is_var, *t);
  else is_var.push_back(false);
}
template <class T>
void extract_variables(variable_list&, std::vector<bool>& is_var, const T&) {
  is_var.push_back(false);
}

// One call of Function<T>::apply: made before forward runs (it takes the
// inputs' gradient edges), finished with forward's outputs.
class CustomCall {
 public:
  CustomCall(const std::type_info& type, CustomBackward backward, variable_list inputs, std::vector<bool> is_var);
  ~CustomCall();
  CustomCall(const CustomCall&) = delete;
  CustomCall& operator=(const CustomCall&) = delete;
  AutogradContext* ctx() const;
  // Sets the outputs' history (or detaches / aliases them) and saves the
  // context's tensors. Returns the outputs to give to the caller.
  variable_list finish(variable_list outputs);

 private:
  std::shared_ptr<CppNode> node_;
  variable_list inputs_;
  bool executable_;
};
}  // namespace detail

template <class Derived>
struct Function {
  // Runs Derived::forward(ctx, args...) and makes its outputs (a Tensor or a
  // variable_list; the same type is returned) the outputs of a node whose
  // backward is Derived::backward.
  template <class... Args>
  static auto apply(Args&&... args) {
    using Out = std::decay_t<decltype(Derived::forward(static_cast<AutogradContext*>(nullptr),
                                                       std::forward<Args>(args)...))>;
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, variable_list>,
                  "Function::forward must return a Tensor or a variable_list");
    variable_list vars;
    std::vector<bool> is_var;
    (detail::extract_variables(vars, is_var, args), ...);
    detail::CustomCall call(
        typeid(Derived),
        [](AutogradContext* ctx, variable_list grads) -> variable_list {
          return Derived::backward(ctx, std::move(grads));
        },
        std::move(vars), std::move(is_var));
    Out out;
    {
      AutoGradMode no_grad(false);
      out = Derived::forward(call.ctx(), std::forward<Args>(args)...);
    }
    if constexpr (std::is_same_v<Out, Tensor>) {
      return call.finish(variable_list{std::move(out)})[0];
    } else {
      return call.finish(std::move(out));
    }
  }
};

}  // namespace ember::autograd
