// Note [Functional API]
// A port of torch/autograd/functional.py (PyTorch 1.5) onto autograd::grad:
//  - inputs are preprocessed into fresh tensors that require grad (aliases
//    recorded with view_as when create_graph and the input requires grad, so
//    that the results stay differentiable w.r.t. the caller's tensors;
//    detached otherwise), and the function runs on those;
//  - vjp is one backward; jvp is the double-vjp trick: g(u) = J^T u is
//    computed with create_graph for a dummy u that requires grad, and
//    d<g(u), v>/du = J v; hvp applies the same trick to the gradient;
//  - jacobian runs one backward per output element through the retained
//    graph, or one batched backward (`vectorize` below); hessian is
//    the jacobian of a jacobian computed with create_graph;
//  - undefined gradients (an output independent of an input) become zeros,
//    or errors in strict mode; without create_graph the results are detached.
//
// vectorize (jacobian): all rows in one backward pass with batched
// gradients (autograd::grad with is_grads_batched): the seed is the identity
// with one row per output element. Elementwise nodes run once on the whole
// batch; other nodes run once per row inside the same pass (Note [Batched
// gradients] in engine.cpp), so the result is always exact and equal to the
// row-by-row path.
#include "ember/autograd/functional.h"

#include "autograd/record.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape.h"

namespace ember::autograd::functional {

namespace {

enum class Check { Outputs, GradInputs, Jacobian, Hessian };
enum class Stage { Back, BackTrick, DoubleBack, DoubleBackTrick };

// Fresh tensors for the function: see Note [Functional API].
variable_list grad_preprocess(const variable_list& inputs, bool create_graph, bool need_graph) {
  variable_list res;
  res.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& inp = inputs[i];
    EMBER_CHECK(inp.defined(), "autograd::functional: input ", i, " is undefined");
    if (create_graph && inp.requires_grad()) res.push_back(inp.view_as(inp));
    else res.push_back(inp.detach().requires_grad_(need_graph));
  }
  return res;
}

variable_list grad_postprocess(variable_list values, bool create_graph) {
  if (!create_graph)
    for (Tensor& t : values)
      if (t.defined()) t = t.detach();
  return values;
}

void validate_v(const variable_list& v, const variable_list& other, bool is_other_tuple) {
  if (v.size() != other.size()) {
    EMBER_CHECK(!is_other_tuple, "v is a tuple of invalid length: should be ", other.size(), " but got ", v.size(),
                ".");
    EMBER_FAIL("The given v should contain a single Tensor.");
  }
  for (size_t i = 0; i < v.size(); ++i) {
    EMBER_CHECK(v[i].defined(), is_other_tuple ? ember::detail::concat("Entry ", i, " in ") : std::string(),
                "v is undefined.");
    if (v[i].sizes() != other[i].sizes())
      EMBER_FAIL(is_other_tuple ? ember::detail::concat("Entry ", i, " in ") : std::string(),
                 "v has invalid size: should be ", other[i].sizes(), " but got ", v[i].sizes(), ".");
  }
}

void check_requires_grad(const variable_list& values, Check type, bool strict) {
  if (!strict) return;
  for (size_t i = 0; i < values.size(); ++i) {
    const Tensor& t = values[i];
    EMBER_CHECK(t.defined(), "The output of the user-provided function is independent of input ", i,
                ". This is not allowed in strict mode.");
    if (t.requires_grad()) continue;
    switch (type) {
      case Check::Hessian:
        EMBER_FAIL("The hessian of the user-provided function with respect to input ", i,
                   " is independent of the input. This is not allowed in strict mode. You should ensure that your "
                   "function is thrice differentiable and that the hessian depends on the inputs.");
      case Check::Jacobian:
        EMBER_FAIL("While computing the hessian, found that the jacobian of the user-provided function with "
                   "respect to input ", i, " is independent of the input. This is not allowed in strict mode. You "
                   "should ensure that your function is twice differentiable and that the jacobian depends on the "
                   "inputs (this would be violated by a linear function for example).");
      case Check::GradInputs:
        EMBER_FAIL("The gradient with respect to input ", i, " is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.");
      case Check::Outputs:
        EMBER_FAIL("Output ", i, " of the user-provided function does not require gradients. The outputs must be "
                   "computed in a differentiable manner from the input when running in strict mode.");
    }
  }
}

// autograd::grad that skips outputs that do not require grad (all results
// undefined when none does) and allows unused inputs.
variable_list autograd_grad(const variable_list& outputs, const variable_list& inputs,
                            const variable_list& grad_outputs, bool create_graph,
                            std::optional<bool> retain_graph = std::nullopt) {
  variable_list new_outputs, new_grad_outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined() || !outputs[i].requires_grad()) continue;
    new_outputs.push_back(outputs[i]);
    new_grad_outputs.push_back(grad_outputs.empty() ? Tensor() : grad_outputs[i]);
  }
  if (new_outputs.empty()) return variable_list(inputs.size());
  return grad(new_outputs, inputs, new_grad_outputs, retain_graph, create_graph, /*allow_unused=*/true);
}

variable_list fill_in_zeros(variable_list grads, const variable_list& refs, bool strict, bool create_graph,
                            Stage stage) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) {
      if (strict) {
        switch (stage) {
          case Stage::Back:
            EMBER_FAIL("The output of the user-provided function is independent of input ", i,
                       ". This is not allowed in strict mode.");
          case Stage::BackTrick:
            EMBER_FAIL("The gradient with respect to the input is independent of entry ", i,
                       " in the grad_outputs when using the double backward trick to compute forward mode "
                       "gradients. This is not allowed in strict mode.");
          case Stage::DoubleBack:
            EMBER_FAIL("The jacobian of the user-provided function is independent of input ", i,
                       ". This is not allowed in strict mode.");
          case Stage::DoubleBackTrick:
            EMBER_FAIL("The hessian of the user-provided function is independent of entry ", i,
                       " in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                       "double backward trick to replace forward mode AD.");
        }
      }
      grads[i] = zeros_like(refs[i]);
    } else if (strict && create_graph && !grads[i].requires_grad()) {
      const bool dbl = stage == Stage::DoubleBack || stage == Stage::DoubleBackTrick;
      EMBER_FAIL("The ", dbl ? "hessian" : "jacobian", " of the user-provided function is independent of input ", i,
                 ". This is not allowed in strict mode when create_graph=True.");
    }
  }
  return grads;
}

DimVector cat_sizes(IntArrayRef a, IntArrayRef b) {
  DimVector s(a);
  for (int64_t x : b) s.push_back(x);
  return s;
}

// The rows (each shaped like `in`) as one tensor of shape out_sizes + in.shape
// (stack records, so rows with history stay differentiable).
Tensor assemble(const variable_list& rows, IntArrayRef out_sizes, const Tensor& in) {
  const DimVector sizes = cat_sizes(out_sizes, in.sizes());
  if (rows.empty()) return zeros(sizes, in.options());
  return stack(rows, 0).reshape(sizes);
}

std::vector<variable_list> jacobian_impl(const TensorListFn& func, const variable_list& inputs_in,
                                         bool create_graph, bool strict, bool vectorize) {
  EnableGradGuard enable_grad;
  const variable_list inputs = grad_preprocess(inputs_in, create_graph, /*need_graph=*/true);
  const variable_list outputs = func(inputs);
  check_requires_grad(outputs, Check::Outputs, strict);

  std::vector<variable_list> jacobian(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined(), "jacobian: output ", i, " of the user-provided function is undefined");
    const int64_t n = out.numel();
    if (vectorize) {
      // All n rows in one batched backward (Note [Batched gradients] in
      // engine.cpp): the seed is the identity, one row per output element.
      variable_list vj(inputs.size());
      if (out.requires_grad() && n > 0) {
        Tensor seed;
        {
          NoGradGuard no_grad;
          seed = eye(n, out.options()).view(cat_sizes({n}, out.sizes()));
        }
        vj = grad({out}, inputs, {seed}, /*retain_graph=*/true, create_graph, /*allow_unused=*/true,
                  /*is_grads_batched=*/true);
      }
      for (size_t j = 0; j < inputs.size(); ++j) {
        const DimVector sizes = cat_sizes(out.sizes(), inputs[j].sizes());
        if (vj[j].defined()) {
          EMBER_CHECK(!(strict && create_graph && !vj[j].requires_grad()),
                      "The jacobian of the user-provided function is independent of input ", i,
                      ". This is not allowed in strict mode when create_graph=True.");
          jacobian[i].push_back(vj[j].reshape(sizes));
        } else {
          EMBER_CHECK(!strict || n == 0, "Output ", i, " of the user-provided function is independent of input ",
                      j, ". This is not allowed in strict mode.");
          jacobian[i].push_back(zeros(sizes, inputs[j].options()));
        }
      }
      continue;
    }
    std::vector<variable_list> rows(inputs.size());
    for (int64_t k = 0; k < n; ++k) {
      variable_list vj =
          autograd_grad({out.reshape({-1}).select(0, k)}, inputs, {}, create_graph, /*retain_graph=*/true);
      for (size_t j = 0; j < inputs.size(); ++j) {
        if (vj[j].defined()) {
          EMBER_CHECK(!(strict && create_graph && !vj[j].requires_grad()),
                      "The jacobian of the user-provided function is independent of input ", i,
                      ". This is not allowed in strict mode when create_graph=True.");
          rows[j].push_back(std::move(vj[j]));
        } else {
          EMBER_CHECK(!strict, "Output ", i, " of the user-provided function is independent of input ", j,
                      ". This is not allowed in strict mode.");
          rows[j].push_back(zeros_like(inputs[j]));
        }
      }
    }
    for (size_t j = 0; j < inputs.size(); ++j) jacobian[i].push_back(assemble(rows[j], out.sizes(), inputs[j]));
  }
  if (!create_graph)
    for (variable_list& row : jacobian) row = grad_postprocess(std::move(row), false);
  return jacobian;
}

std::vector<variable_list> hessian_impl(const TensorListToTensorFn& func, const variable_list& inputs,
                                        bool create_graph, bool strict) {
  TensorListFn single_output = [&](const variable_list& inp) -> variable_list {
    Tensor out = func(inp);
    EMBER_CHECK(out.defined(), "The function given to hessian should return a single Tensor");
    check_requires_grad({out}, Check::Outputs, strict);
    EMBER_CHECK(out.numel() == 1,
                "The Tensor returned by the function given to hessian should contain a single element");
    return {out.reshape(IntArrayRef{})};
  };
  TensorListFn jac_func = [&](const variable_list& inp) -> variable_list {
    std::vector<variable_list> jac = jacobian_impl(single_output, inp, /*create_graph=*/true, false, false);
    check_requires_grad(jac[0], Check::Jacobian, strict);
    return jac[0];
  };
  return jacobian_impl(jac_func, inputs, create_graph, strict, false);
}

// Shared by vhp and hvp: the preprocessed inputs, v, the output and its gradient.
struct SecondOrder {
  variable_list inputs, v, outputs, jac;
};

SecondOrder second_order_setup(const char* name, const TensorListToTensorFn& func, const variable_list& inputs_in,
                               const variable_list& v_in, bool create_graph, bool strict, bool is_inputs_tuple) {
  SecondOrder s;
  s.inputs = grad_preprocess(inputs_in, create_graph, /*need_graph=*/true);
  if (!v_in.empty()) {
    s.v = grad_preprocess(v_in, create_graph, /*need_graph=*/false);
    validate_v(s.v, s.inputs, is_inputs_tuple);
  } else {
    EMBER_CHECK(s.inputs.size() == 1 && s.inputs[0].numel() == 1,
                "The vector v can only be None if the input to the user-provided function is a single Tensor with "
                "a single element.");
  }
  Tensor out = func(s.inputs);
  EMBER_CHECK(out.defined(), "The function given to ", name, " should return a single Tensor");
  s.outputs = {out};
  check_requires_grad(s.outputs, Check::Outputs, strict);
  EMBER_CHECK(out.numel() == 1, "The Tensor returned by the function given to ", name,
              " should contain a single element");
  s.jac = autograd_grad(s.outputs, s.inputs, {}, /*create_graph=*/true);
  check_requires_grad(s.jac, Check::Jacobian, strict);
  return s;
}

std::pair<Tensor, variable_list> vhp_impl(const TensorListToTensorFn& func, const variable_list& inputs,
                                          const variable_list& v, bool create_graph, bool strict,
                                          bool is_inputs_tuple) {
  EnableGradGuard enable_grad;
  SecondOrder s = second_order_setup("vhp", func, inputs, v, create_graph, strict, is_inputs_tuple);
  variable_list grad_res = autograd_grad(s.jac, s.inputs, s.v, create_graph);
  variable_list res = fill_in_zeros(std::move(grad_res), s.inputs, strict, create_graph, Stage::DoubleBack);
  return {grad_postprocess(s.outputs, create_graph)[0], grad_postprocess(std::move(res), create_graph)};
}

std::pair<Tensor, variable_list> hvp_impl(const TensorListToTensorFn& func, const variable_list& inputs,
                                          const variable_list& v, bool create_graph, bool strict,
                                          bool is_inputs_tuple) {
  EnableGradGuard enable_grad;
  SecondOrder s = second_order_setup("hvp", func, inputs, v, create_graph, strict, is_inputs_tuple);
  variable_list grad_jac;
  for (const Tensor& inp : s.inputs) grad_jac.push_back(zeros_like(inp).requires_grad_());
  variable_list double_back = autograd_grad(s.jac, s.inputs, grad_jac, /*create_graph=*/true);
  check_requires_grad(s.jac, Check::Hessian, strict);
  variable_list grad_res = autograd_grad(double_back, grad_jac, s.v, create_graph);
  variable_list res = fill_in_zeros(std::move(grad_res), s.inputs, strict, create_graph, Stage::DoubleBackTrick);
  return {grad_postprocess(s.outputs, create_graph)[0], grad_postprocess(std::move(res), create_graph)};
}

std::pair<variable_list, variable_list> vjp_impl(const TensorListFn& func, const variable_list& inputs_in,
                                                 const variable_list& v_in, bool create_graph, bool strict,
                                                 bool is_outputs_tuple) {
  EnableGradGuard enable_grad;
  const variable_list inputs = grad_preprocess(inputs_in, create_graph, /*need_graph=*/true);
  variable_list outputs = func(inputs);
  check_requires_grad(outputs, Check::Outputs, strict);
  variable_list v;
  if (!v_in.empty()) {
    v = grad_preprocess(v_in, create_graph, /*need_graph=*/false);
    validate_v(v, outputs, is_outputs_tuple);
  } else {
    EMBER_CHECK(outputs.size() == 1 && outputs[0].defined() && outputs[0].numel() == 1,
                "The vector v can only be None if the user-provided function returns a single Tensor with a single "
                "element.");
  }
  variable_list grad_res = autograd_grad(outputs, inputs, v, create_graph);
  variable_list res = fill_in_zeros(std::move(grad_res), inputs, strict, create_graph, Stage::Back);
  return {grad_postprocess(std::move(outputs), create_graph), grad_postprocess(std::move(res), create_graph)};
}

std::pair<variable_list, variable_list> jvp_impl(const TensorListFn& func, const variable_list& inputs_in,
                                                 const variable_list& v_in, bool create_graph, bool strict,
                                                 bool is_inputs_tuple) {
  EnableGradGuard enable_grad;
  const variable_list inputs = grad_preprocess(inputs_in, create_graph, /*need_graph=*/true);
  variable_list v;
  if (!v_in.empty()) {
    v = grad_preprocess(v_in, create_graph, /*need_graph=*/false);
    validate_v(v, inputs, is_inputs_tuple);
  } else {
    EMBER_CHECK(inputs.size() == 1 && inputs[0].numel() == 1,
                "The vector v can only be None if the input to the user-provided function is a single Tensor with "
                "a single element.");
  }
  variable_list outputs = func(inputs);
  check_requires_grad(outputs, Check::Outputs, strict);
  // The backward is linear in grad_outputs, so their value does not appear in
  // the double backward: zeros (no inf or nan) that require grad.
  variable_list grad_outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    EMBER_CHECK(outputs[i].defined(), "jvp: output ", i, " of the user-provided function is undefined");
    grad_outputs.push_back(zeros_like(outputs[i]).requires_grad_());
  }
  variable_list grad_inputs = autograd_grad(outputs, inputs, grad_outputs, /*create_graph=*/true);
  check_requires_grad(grad_inputs, Check::GradInputs, strict);
  variable_list grad_res = autograd_grad(grad_inputs, grad_outputs, v, create_graph);
  variable_list res = fill_in_zeros(std::move(grad_res), outputs, strict, create_graph, Stage::BackTrick);
  return {grad_postprocess(std::move(outputs), create_graph), grad_postprocess(std::move(res), create_graph)};
}

TensorListFn lift(const TensorFn& func) {
  return [func](const variable_list& x) { return variable_list{func(x[0])}; };
}

TensorListToTensorFn lift_scalar(const TensorFn& func) {
  return [func](const variable_list& x) { return func(x[0]); };
}

TensorListToTensorFn single(const char* name, const TensorListFn& func) {
  return [func, name](const variable_list& x) {
    variable_list out = func(x);
    EMBER_CHECK(out.size() == 1, "The function given to ", name, " should return a single Tensor, got ", out.size());
    return out[0];
  };
}

variable_list maybe(const Tensor& t) { return t.defined() ? variable_list{t} : variable_list{}; }

}  // namespace

// ---- vjp ----

std::pair<Tensor, Tensor> vjp(const TensorFn& func, const Tensor& inputs, const Tensor& v, bool create_graph,
                              bool strict) {
  auto [out, res] = vjp_impl(lift(func), {inputs}, maybe(v), create_graph, strict, false);
  return {out[0], res[0]};
}

std::pair<variable_list, variable_list> vjp(const TensorListFn& func, const variable_list& inputs,
                                            const variable_list& v, bool create_graph, bool strict) {
  return vjp_impl(func, inputs, v, create_graph, strict, true);
}

// ---- jvp ----

std::pair<Tensor, Tensor> jvp(const TensorFn& func, const Tensor& inputs, const Tensor& v, bool create_graph,
                              bool strict) {
  auto [out, res] = jvp_impl(lift(func), {inputs}, maybe(v), create_graph, strict, false);
  return {out[0], res[0]};
}

std::pair<variable_list, variable_list> jvp(const TensorListFn& func, const variable_list& inputs,
                                            const variable_list& v, bool create_graph, bool strict) {
  return jvp_impl(func, inputs, v, create_graph, strict, true);
}

// ---- jacobian ----

Tensor jacobian(const TensorFn& func, const Tensor& inputs, bool create_graph, bool strict, bool vectorize) {
  return jacobian_impl(lift(func), {inputs}, create_graph, strict, vectorize)[0][0];
}

std::vector<variable_list> jacobian(const TensorListFn& func, const variable_list& inputs, bool create_graph,
                                    bool strict, bool vectorize) {
  return jacobian_impl(func, inputs, create_graph, strict, vectorize);
}

// ---- hessian ----

Tensor hessian(const TensorFn& func, const Tensor& inputs, bool create_graph, bool strict) {
  return hessian_impl(lift_scalar(func), {inputs}, create_graph, strict)[0][0];
}

std::vector<variable_list> hessian(const TensorListToTensorFn& func, const variable_list& inputs, bool create_graph,
                                   bool strict) {
  return hessian_impl(func, inputs, create_graph, strict);
}

std::vector<variable_list> hessian(const TensorListFn& func, const variable_list& inputs, bool create_graph,
                                   bool strict) {
  return hessian_impl(single("hessian", func), inputs, create_graph, strict);
}

// ---- vhp / hvp ----

std::pair<Tensor, Tensor> vhp(const TensorFn& func, const Tensor& inputs, const Tensor& v, bool create_graph,
                              bool strict) {
  auto [out, res] = vhp_impl(lift_scalar(func), {inputs}, maybe(v), create_graph, strict, false);
  return {out, res[0]};
}

std::pair<Tensor, variable_list> vhp(const TensorListToTensorFn& func, const variable_list& inputs,
                                     const variable_list& v, bool create_graph, bool strict) {
  return vhp_impl(func, inputs, v, create_graph, strict, true);
}

std::pair<Tensor, variable_list> vhp(const TensorListFn& func, const variable_list& inputs, const variable_list& v,
                                     bool create_graph, bool strict) {
  return vhp_impl(single("vhp", func), inputs, v, create_graph, strict, true);
}

std::pair<Tensor, Tensor> hvp(const TensorFn& func, const Tensor& inputs, const Tensor& v, bool create_graph,
                              bool strict) {
  auto [out, res] = hvp_impl(lift_scalar(func), {inputs}, maybe(v), create_graph, strict, false);
  return {out, res[0]};
}

std::pair<Tensor, variable_list> hvp(const TensorListToTensorFn& func, const variable_list& inputs,
                                     const variable_list& v, bool create_graph, bool strict) {
  return hvp_impl(func, inputs, v, create_graph, strict, true);
}

std::pair<Tensor, variable_list> hvp(const TensorListFn& func, const variable_list& inputs, const variable_list& v,
                                     bool create_graph, bool strict) {
  return hvp_impl(single("hvp", func), inputs, v, create_graph, strict, true);
}

}  // namespace ember::autograd::functional
