// Node basics, tensor histories (grad_fn / grad accumulator / view rebuild).
#include "ember/autograd/node.h"

#include <atomic>
#include <limits>

#include "autograd/accumulate_grad.h"
#include "autograd/autograd_meta.h"
#include "autograd/view_history.h"

namespace ember::autograd {

namespace {
thread_local uint64_t t_next_sequence_nr = 0;
// Nodes whose last owner is a node being destroyed: freed in a loop rather
// than by recursion, so that a long chain cannot overflow the stack.
thread_local std::vector<std::shared_ptr<Node>>* t_pending_deletes = nullptr;
}  // namespace

uint64_t next_hook_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

Node::Node(std::vector<Edge> next_edges)
    : next_edges_(std::move(next_edges)), sequence_nr_(t_next_sequence_nr++) {}

Node::~Node() {
  std::vector<std::shared_ptr<Node>> local;
  const bool owner = t_pending_deletes == nullptr;
  if (owner) t_pending_deletes = &local;
  for (Edge& e : next_edges_)
    if (e.function && e.function.use_count() == 1) t_pending_deletes->push_back(std::move(e.function));
  if (owner) {
    while (!local.empty()) {
      std::shared_ptr<Node> n = std::move(local.back());
      local.pop_back();
      n.reset();
    }
    t_pending_deletes = nullptr;
  }
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_metadata_.push_back(InputMetadata{DimVector(t.sizes()), t.dtype(), t.device(), Stream{}});
  // Only a device output asks for its stream: the CPU path does no more work.
  if (!t.device().is_cpu()) input_metadata_.back().stream = current_stream(t.device());
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

uint64_t Node::add_tensor_pre_hook(uint32_t input_nr, TensorHook hook) {
  const uint64_t id = next_hook_id();
  pre_hooks_.push_back(PreHook{id, input_nr, std::move(hook)});
  return id;
}

bool Node::remove_tensor_pre_hook(uint64_t id) {
  for (auto it = pre_hooks_.begin(); it != pre_hooks_.end(); ++it)
    if (it->id == id) {
      pre_hooks_.erase(it);
      return true;
    }
  return false;
}

void Node::add_retain_grad_slot(uint32_t input_nr, std::shared_ptr<Tensor> slot) {
  for (auto& [nr, s] : retain_grad_slots_)
    if (nr == input_nr && s == slot) return;
  retain_grad_slots_.emplace_back(input_nr, std::move(slot));
}

void Node::run_tensor_pre_hooks(variable_list& grads, bool batched) {
  for (const PreHook& h : pre_hooks_) {
    Tensor& g = grads[h.input_nr];
    if (!g.defined()) continue;
    Tensor replaced = h.fn(g);
    if (replaced.defined()) g = std::move(replaced);
  }
  // retain_grad stores the (hooked) gradient, accumulating over backward calls.
  if (batched) return;
  for (auto& [nr, slot] : retain_grad_slots_) {
    const Tensor& g = grads[nr];
    if (!g.defined()) continue;
    if (!slot->defined()) *slot = g.clone();
    else *slot = *slot + g;
  }
}

// ---- tensor histories ----

void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t nr) {
  AutogradMeta& m = t.impl()->ensure_autograd_meta();
  m.grad_fn = std::move(fn);
  m.output_nr = nr;
  if (t.impl()->view_base()) t.impl()->set_view_version(t._version());
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& m = leaf.impl()->ensure_autograd_meta();
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  m.grad_accumulator = acc;
  return acc;
}

namespace {
bool base_requires_grad(const TensorImpl& base) {
  const AutogradMeta* m = base.autograd_meta();
  return m && (m->requires_grad || m->grad_fn);
}

// A view whose base (or a sibling view) was written in place since its
// history was set gets a new grad_fn: the view's geometry over the base's
// current history.
void refresh_view_history(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (!impl->view_base() || impl->view_version() == t._version()) return;
  if (!base_requires_grad(*impl->view_base())) return;
  const Tensor base(impl->view_base());
  set_history(t, make_view_rebuild_node(base, t), 0);
}
}  // namespace

std::shared_ptr<Node> grad_fn_of(const Tensor& t) {
  refresh_view_history(t);
  const AutogradMeta* m = t.impl()->autograd_meta();
  return m ? m->grad_fn : nullptr;
}

bool requires_grad(const Tensor& t) {
  const TensorImpl* impl = t.impl();
  if (const AutogradMeta* m = impl->autograd_meta(); m && (m->requires_grad || m->grad_fn)) return true;
  return impl->view_base() && impl->view_version() != t._version() && base_requires_grad(*impl->view_base());
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  if (auto fn = grad_fn_of(t)) return Edge{std::move(fn), meta_of(t)->output_nr};
  if (const AutogradMeta* m = meta_of(t); m && m->requires_grad) return Edge{grad_accumulator(t), 0};
  return {};
}

}  // namespace ember::autograd
