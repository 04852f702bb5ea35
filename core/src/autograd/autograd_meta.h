#pragma once
// Per-tensor autograd state, hung off TensorImpl on first use.
#include <memory>
#include <string>
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

struct AutogradMeta {
  // The gradient slot is shared so that a retain_grad hook on grad_fn can fill
  // it without holding the tensor (that would be a reference cycle).
  std::shared_ptr<Tensor> grad = std::make_shared<Tensor>();
  std::shared_ptr<Node> grad_fn;
  // Leaves only; the accumulator holds the tensor, so this side is weak.
  std::weak_ptr<Node> grad_accumulator;
  uint32_t output_nr = 0;
  bool requires_grad = false;  // leaves: the user's flag
  bool retains_grad = false;
  // An output of a custom Function that shares an input's memory (an input
  // returned as-is, or a view of one): writing it in place is an error, as
  // in PyTorch (the view+inplace rebase would bypass the custom backward).
  bool custom_function_view = false;
  // Set on the outputs of multi-output view ops (split, unbind...) and views
  // of them: their backward node's name and the output's number. In-place
  // writes to such views are an error, as in PyTorch (check_inplace).
  std::string multi_output_view_fn;
  uint32_t multi_output_view_nr = 0;
  // Leaf tensor hooks (non-leaf hooks live on grad_fn).
  struct Hook {
    uint64_t id;
    TensorHook fn;
  };
  std::vector<Hook> hooks;
  struct PostHook {
    uint64_t id;
    PostAccumulateGradHook fn;
  };
  std::vector<PostHook> post_accumulate_hooks;
};

inline AutogradMeta* meta_of(const Tensor& t) { return t.impl()->autograd_meta(); }

uint64_t next_hook_id();

// Sets t's history: grad_fn = fn, output_nr = nr (fn null clears it).
void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t nr);

// t's grad_fn, rebuilt first when t is a view whose base changed in place.
std::shared_ptr<Node> grad_fn_of(const Tensor& t);
// Leaf with requires_grad, or a tensor with history.
bool requires_grad(const Tensor& t);

// The grad accumulator of a leaf that requires grad (created on first use).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

}  // namespace ember::autograd
