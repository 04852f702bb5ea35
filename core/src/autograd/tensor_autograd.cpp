// The autograd methods of Tensor.
#include "autograd/autograd_meta.h"
#include "autograd/record.h"
#include "ember/autograd/autograd.h"

namespace ember {

using autograd::AutogradMeta;
using autograd::meta_of;

void Tensor::check_inference_write() const {
  EMBER_CHECK(is_inference_mode_enabled(),
              "in-place update to an inference tensor outside InferenceMode is not allowed (", toString(),
              "); clone() it first");
}

Tensor& Tensor::requires_grad_(bool flag) {
  EMBER_CHECK(defined(), "requires_grad_: tensor is undefined");
  if (flag) {
    EMBER_CHECK(is_floating_point() || is_complex(), "requires_grad_: only Tensors of floating point and complex "
                "dtype can require gradients, got ", dtype());
    EMBER_CHECK(!is_inference() || is_inference_mode_enabled(),
                "requires_grad_: setting requires_grad=true on an inference tensor outside InferenceMode is not allowed");
  }
  if (!is_leaf()) {
    EMBER_CHECK(flag, "requires_grad_: you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()");
    return *this;
  }
  if (!flag && !meta_of(*this)) return *this;
  impl()->ensure_autograd_meta().requires_grad = flag;
  return *this;
}

bool Tensor::requires_grad() const { return defined() && autograd::requires_grad(*this); }

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  const AutogradMeta* m = meta_of(*this);
  return m ? *m->grad : undefined;
}

Tensor& Tensor::mutable_grad() { return *impl()->ensure_autograd_meta().grad; }

void Tensor::set_grad(const Tensor& g) {
  if (g.defined()) {
    EMBER_CHECK(g.sizes() == sizes(), "set_grad: assigned grad has shape ", g.sizes(), " but the tensor has shape ",
                sizes());
    EMBER_CHECK(g.dtype() == dtype(), "set_grad: assigned grad has dtype ", g.dtype(), " but the tensor has dtype ",
                dtype());
  }
  *impl()->ensure_autograd_meta().grad = g;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return autograd::grad_fn_of(*this); }

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

uint32_t Tensor::output_nr() const {
  const AutogradMeta* m = meta_of(*this);
  return m ? m->output_nr : 0;
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "retain_grad: can't retain_grad on a Tensor that has requires_grad=false");
  auto fn = grad_fn();
  if (!fn) return;  // leaves keep their gradient anyway
  AutogradMeta& m = impl()->ensure_autograd_meta();
  m.retains_grad = true;
  fn->add_retain_grad_slot(m.output_nr, m.grad);
}

bool Tensor::retains_grad() const {
  const AutogradMeta* m = meta_of(*this);
  return m && (m->retains_grad || (m->requires_grad && !m->grad_fn));
}

Tensor Tensor::detach() const {
  auto alias = make_intrusive<TensorImpl>(storage(), dtype(), sizes(), strides(), storage_offset());
  alias->set_inference(is_inference());
  alias->set_conj(is_conj());
  alias->set_neg(is_neg());
  // A quantized tensor's alias keeps its parameters (torch's detach does):
  // state_dict() detaches, and save() needs them.
  alias->set_quantizer(impl()->quantizer());
  return Tensor(std::move(alias));
}

void Tensor::set_data(const Tensor& data) const {
  EMBER_CHECK(data.defined(), "set_data: the new data is undefined");
  EMBER_CHECK(!requires_grad() || data.is_floating_point() || data.is_complex(),
              "set_data: a tensor that requires grad needs floating point or complex data, got ", data.dtype());
  impl()->set_data_from(*data.impl());
}

Tensor& Tensor::detach_() {
  EMBER_CHECK(!is_view(), "detach_: can't detach views in-place. Use detach() instead");
  if (AutogradMeta* m = impl()->autograd_meta()) {
    m->grad_fn.reset();
    m->output_nr = 0;
    m->requires_grad = false;
  }
  return *this;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      const std::vector<Tensor>& inputs) const {
  autograd::backward({*this}, gradient.defined() ? autograd::variable_list{gradient} : autograd::variable_list{},
                     retain_graph, create_graph, inputs);
}

uint64_t Tensor::register_hook_impl(std::function<Tensor(const Tensor&)> fn) const {
  EMBER_CHECK(requires_grad(), "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  if (auto f = grad_fn()) return f->add_tensor_pre_hook(output_nr(), std::move(fn));
  const uint64_t id = autograd::next_hook_id();
  impl()->ensure_autograd_meta().hooks.push_back({id, std::move(fn)});
  return id;
}

void Tensor::remove_hook(uint64_t handle) const {
  if (auto f = grad_fn(); f && f->remove_tensor_pre_hook(handle)) return;
  if (AutogradMeta* m = impl()->autograd_meta()) {
    std::erase_if(m->hooks, [&](const auto& h) { return h.id == handle; });
    std::erase_if(m->post_accumulate_hooks, [&](const auto& h) { return h.id == handle; });
  }
}

uint64_t Tensor::register_post_accumulate_grad_hook(std::function<void(Tensor&)> fn) const {
  EMBER_CHECK(requires_grad() && is_leaf(), "register_post_accumulate_grad_hook: post accumulate grad hooks "
              "can only be registered on leaf tensors that require grad");
  const uint64_t id = autograd::next_hook_id();
  impl()->ensure_autograd_meta().post_accumulate_hooks.push_back({id, std::move(fn)});
  return id;
}

}  // namespace ember
