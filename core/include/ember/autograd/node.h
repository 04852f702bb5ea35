#pragma once
// The autograd graph: a Node is one recorded op's backward; its edges point at
// the nodes that produced the op's inputs. See docs/autograd.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

using variable_list = std::vector<Tensor>;
class Node;

// Where a gradient goes: input `input_nr` of `function`.
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

// What a node's gradient input must look like: the forward output's shape,
// dtype and device. The engine checks every gradient against it. stream: for
// an output on a device (not the CPU), the current stream of that device when
// the forward op ran: the node's backward runs there (Note [Streams in
// backward] in engine.cpp).
struct InputMetadata {
  DimVector sizes;
  DType dtype = kFloat32;
  Device device;
  Stream stream;
};

// A tensor hook sees the gradient of its tensor; returning a defined tensor
// replaces that gradient.
using TensorHook = std::function<Tensor(const Tensor&)>;

class Node : public std::enable_shared_from_this<Node> {
 public:
  explicit Node(std::vector<Edge> next_edges = {});
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // PyTorch-style name, e.g. "MulBackward0".
  virtual std::string name() const = 0;
  // Gradients of the forward outputs in, gradients of the forward inputs out
  // (one per next edge; undefined where none flows).
  virtual variable_list apply(variable_list&& grads) = 0;
  // Frees saved tensors once the node has run (unless retain_graph).
  virtual void release_variables() {}
  // Whether apply() is right for gradients with an extra leading batch dim
  // (formulas made only of broadcasting elementwise ops). The engine's
  // batched mode runs other nodes once per batch entry.
  virtual bool supports_batched_grads() const { return false; }
  // The forward op that recorded this node (for error messages).
  virtual std::string forward_op() const { return name(); }

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  // Whether the gradient of forward input i is wanted by anyone.
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  size_t num_inputs() const { return input_metadata_.size(); }
  uint32_t add_input_metadata(const Tensor& t);
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }
  // The stream the node's backward runs on: that of its first forward output
  // on a device (c10's Node::stream); none when every output is on the CPU.
  std::optional<Stream> stream() const {
    for (const InputMetadata& md : input_metadata_)
      if (!md.device.is_cpu()) return md.stream;
    return std::nullopt;
  }
  // Later nodes run first in the engine's ready queue.
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks on the gradient flowing into input `input_nr` (Tensor::register_hook).
  uint64_t add_tensor_pre_hook(uint32_t input_nr, TensorHook hook);
  bool remove_tensor_pre_hook(uint64_t id);
  // Tensor::retain_grad on a non-leaf: the gradient at input_nr is stored in slot.
  void add_retain_grad_slot(uint32_t input_nr, std::shared_ptr<Tensor> slot);
  // Runs the hooks on `grads` in place (tensor hooks, then retain_grad unless
  // the gradients are batched).
  virtual void run_tensor_pre_hooks(variable_list& grads, bool batched = false);

 protected:
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;
  uint64_t sequence_nr_;

 private:
  struct PreHook {
    uint64_t id;
    uint32_t input_nr;
    TensorHook fn;
  };
  std::vector<PreHook> pre_hooks_;
  std::vector<std::pair<uint32_t, std::shared_ptr<Tensor>>> retain_grad_slots_;
};

// The gradient edge of a tensor: its grad_fn (non-leaf), its grad accumulator
// (leaf that requires grad), or an invalid edge.
Edge gradient_edge(const Tensor& t);

// Post-accumulate-grad hook on a leaf: runs after .grad was updated.
using PostAccumulateGradHook = std::function<void(Tensor& leaf)>;

}  // namespace ember::autograd
