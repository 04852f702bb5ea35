// Note [The engine]
// One backward pass is a GraphTask on the calling thread:
//  1. discover the nodes reachable from the roots and count, per node, the
//     edges that point at it (its dependencies);
//  2. when only some inputs matter (autograd::grad, backward(inputs)), mark
//     the nodes that lead to them; others are not run;
//  3. run ready nodes (all dependencies delivered) highest sequence number
//     first, i.e. in reverse order of recording, accumulators first. A node's
//     incoming gradients are summed in its input buffer; its outputs are
//     checked against the next node's input metadata (shape reduced when the
//     gradient was broadcast, dtype cast) and delivered.
// A node's saved tensors are freed right after it ran unless keep_graph, so a
// backward pass holds no more memory than PyTorch's.
//
// Note [Batched gradients]
// autograd::grad(..., is_grads_batched) seeds the roots with gradients that
// have an extra leading dim B and gets B vector-Jacobian products from one
// pass (the vectorized jacobian). Nodes whose formula only broadcasts
// elementwise ops (Node::supports_batched_grads: the elementwise ops, copies)
// run once on the batched gradients; every other node runs once per batch
// entry and its results are stacked. Shapes are checked and reduced on the
// dims after the batch dim.
//
// Note [Streams in backward]
// PyTorch's stream semantics of backward passes ("CUDA semantics"), device-
// generic through core's Stream/Event (ember/core/device_guard.h):
//  - a node runs on the stream its forward op ran on (Node::stream(), recorded
//    in its input metadata): a StreamGuard makes it current while the node's
//    formula runs and its gradients are fitted (so their kernels queue there);
//  - a gradient delivered to a node on another stream of its device (or to a
//    node on another device or the CPU: then to the caller's current stream of
//    the gradient's device, where PyTorch takes the default stream) is summed
//    into that node's buffer on the consumer's stream, which first waits on an
//    event recorded on the stream that wrote the gradient; the gradient's
//    memory is marked as used there (record_stream), so the caching allocator
//    does not hand it out again under the consumer's feet. AccumulateGrad is a
//    node like the others: .grad is updated on its stream, after that wait;
//  - the seeds (given gradients or ones) count as written on the caller's
//    current stream, as the caller queued them there;
//  - at the end every stream the pass queued work on is waited for by the
//    caller's current stream of its device, so the caller may use .grad or the
//    returned gradients at once, as after any other op.
// A pass over CPU tensors only asks each node for its stream (none): no guard,
// no event, no allocation.
#include "autograd/engine.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "autograd/accumulate_grad.h"
#include "autograd/autograd_meta.h"
#include "autograd/record.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/engine_callbacks.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember::autograd {

namespace {

bool expandable_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

// grad [B, ...] reduced to [B, sizes...] (sum_to after the batch dim).
Tensor sum_to_batched(const Tensor& grad, IntArrayRef sizes) {
  const int64_t lead = grad.dim() - 1 - static_cast<int64_t>(sizes.size());
  DimVector dims;
  for (int64_t d = 1; d <= lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] == 1 && grad.size(1 + lead + static_cast<int64_t>(i)) != 1)
      dims.push_back(1 + lead + static_cast<int64_t>(i));
  DimVector target{grad.size(0)};
  for (int64_t s : sizes) target.push_back(s);
  return (dims.empty() ? grad : grad.sum(dims, true)).reshape(target);
}

// Makes a node's output gradient fit the input it flows into.
Tensor fit_gradient(Tensor grad, const Node& producer, size_t index, const InputMetadata& md, bool batched) {
  const IntArrayRef shape = batched ? grad.sizes().slice(1) : grad.sizes();
  if (shape != IntArrayRef(md.sizes)) {
    EMBER_CHECK(expandable_to(md.sizes, shape), "Function ", producer.name(),
                " returned an invalid gradient at index ", index, " - got ", shape,
                " but expected shape compatible with ", IntArrayRef(md.sizes));
    grad = batched ? sum_to_batched(grad, md.sizes) : sum_to(grad, md.sizes);
  }
  if (grad.dtype() != md.dtype) {
    if (grad.is_complex() && !is_complex(md.dtype)) grad = grad.real();
    if (grad.dtype() != md.dtype) grad = grad.to(md.dtype);
  }
  // A gradient lives where its input does (a cross-device copy_ or to()
  // returns the output's gradient unchanged: it moves here).
  if (grad.device() != md.device) grad = grad.to(md.device);
  return grad;
}

void accumulate_into(Tensor& slot, Tensor grad, bool create_graph) {
  if (!slot.defined()) {
    slot = std::move(grad);
    return;
  }
  // Sum in place when nobody else can see the buffer's memory.
  if (!create_graph && slot.use_count() == 1 && slot.storage().use_count() == 1 && !slot.requires_grad() &&
      slot.is_non_overlapping_and_dense() &&
      slot.sizes() == grad.sizes() && slot.dtype() == grad.dtype()) {
    SuspendRecording below;
    slot.add_(grad);
    return;
  }
  slot = slot + grad;
}

// The streams of one pass (Note [Streams in backward]); empty, and untouched,
// for a pass over CPU tensors.
class StreamSync {
 public:
  // The caller's current stream of device d. Asked before the engine makes a
  // stream of d current (enter()), so it is the caller's.
  Stream caller(Device d) {
    for (const Stream& s : caller_)
      if (s.device == d) return s;
    caller_.push_back(current_stream(d));
    return caller_.back();
  }
  // Before running a node on `s`.
  void enter(Stream s) {
    (void)caller(s.device);
    used(s);
  }
  void used(Stream s) {
    if (std::find(used_.begin(), used_.end(), s) == used_.end()) used_.push_back(s);
  }
  // The caller's streams wait for the work the pass queued elsewhere.
  void finish() {
    for (const Stream& s : used_) {
      const Stream c = caller(s.device);
      if (c != s) stream_wait_stream(c, s);
    }
  }

 private:
  std::vector<Stream> caller_, used_;
};

// Adds gradient `grad` into `slot`, the input buffer of a node that runs on
// `consumer`; `producer` is the stream of the node that computed it (none for
// the seeds and CPU nodes). Runs where the producer's guard is current.
void deliver(Tensor& slot, Tensor grad, const std::optional<Stream>& producer, const std::optional<Stream>& consumer,
             bool create_graph, StreamSync& sync) {
  const Device d = grad.device();
  if (d.is_cpu()) {
    accumulate_into(slot, std::move(grad), create_graph);
    return;
  }
  // Where grad was written: the producer's stream when it runs on d, else the
  // current stream of d (the caller's: fit_gradient's copies queued there).
  const Stream written = producer && producer->device == d ? *producer : sync.caller(d);
  const Stream target = consumer && consumer->device == d ? *consumer : sync.caller(d);
  if (target == written) {
    accumulate_into(slot, std::move(grad), create_graph);
    return;
  }
  stream_wait_stream(target, written);
  grad.record_stream(target);
  sync.used(target);
  StreamGuard on(target);
  accumulate_into(slot, std::move(grad), create_graph);
}

void check_anomaly(const Node& node, const variable_list& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !(g.is_floating_point() || g.is_complex())) continue;
    NoGradGuard no_grad;
    EMBER_CHECK(!g.isnan().any().item<bool>(), "Function '", node.name(), "' returned nan values in its ", i,
                "th output; the node was recorded by the forward op '", node.forward_op(), "'");
  }
}

// Runs a node that only knows unbatched gradients once per batch entry and
// stacks its results.
variable_list apply_per_batch_entry(Node& node, const variable_list& grads, int64_t batch) {
  std::vector<variable_list> per_output(node.num_outputs());
  for (int64_t b = 0; b < batch; ++b) {
    variable_list slice(grads.size());
    for (size_t i = 0; i < grads.size(); ++i)
      if (grads[i].defined()) slice[i] = grads[i].select(0, b);
    variable_list out = node.apply(std::move(slice));
    for (size_t i = 0; i < per_output.size(); ++i) per_output[i].push_back(i < out.size() ? out[i] : Tensor());
  }
  variable_list stacked(per_output.size());
  for (size_t i = 0; i < per_output.size(); ++i) {
    const Tensor* any = nullptr;
    for (const Tensor& t : per_output[i])
      if (t.defined()) any = &t;
    if (!any) continue;
    for (Tensor& t : per_output[i])
      if (!t.defined()) t = zeros_like(*any);
    stacked[i] = stack(per_output[i], 0);
  }
  return stacked;
}

struct GraphTask {
  std::vector<Node*> nodes;  // discovery order
  std::unordered_map<Node*, size_t> index;
  std::vector<int> deps;
  std::vector<variable_list> buffers;
  std::vector<char> execute;
  // Per node: (input_nr, slot in `captured`).
  std::unordered_map<size_t, std::vector<std::pair<uint32_t, size_t>>> captures;
  variable_list captured;

  size_t add(Node* n) {
    auto [it, fresh] = index.emplace(n, nodes.size());
    if (fresh) {
      nodes.push_back(n);
      deps.push_back(0);
      buffers.emplace_back(n->num_inputs());
    }
    return it->second;
  }
};

// Which nodes must run: those from which a target (capture or accumulator to
// run) is reachable. Post-order over the discovered graph.
void mark_needed(GraphTask& task, const std::vector<char>& is_target) {
  const size_t n = task.nodes.size();
  std::vector<char> reaches(n, 0), state(n, 0);  // state: 0 new, 1 open, 2 done
  task.execute.assign(n, 0);
  for (size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};  // (node, next edge)
    state[root] = 1;
    while (!stack.empty()) {
      auto& [i, e] = stack.back();
      const auto& edges = task.nodes[i]->next_edges();
      if (e < edges.size()) {
        const Edge& edge = edges[e++];
        if (!edge.is_valid()) continue;
        const size_t j = task.index.at(edge.function.get());
        if (!state[j]) {
          state[j] = 1;
          stack.emplace_back(j, 0);
        }
        continue;
      }
      bool child_reaches = false;
      for (const Edge& edge : edges)
        if (edge.is_valid() && reaches[task.index.at(edge.function.get())]) child_reaches = true;
      task.execute[i] = child_reaches || is_target[i];
      reaches[i] = child_reaches || is_target[i] || task.captures.count(i);
      state[i] = 2;
      stack.pop_back();
    }
  }
}

// The final callbacks of the passes running on this thread, innermost last
// (a hook may run a nested backward).
thread_local std::vector<std::vector<std::function<void()>>*> final_callbacks;

// Registers a pass's callback list for its lifetime.
class FinalCallbacksScope {
 public:
  FinalCallbacksScope() { final_callbacks.push_back(&callbacks_); }
  ~FinalCallbacksScope() { final_callbacks.pop_back(); }
  FinalCallbacksScope(const FinalCallbacksScope&) = delete;
  FinalCallbacksScope& operator=(const FinalCallbacksScope&) = delete;
  // Runs the callbacks, including those queued by a callback.
  void run() {
    for (size_t i = 0; i < callbacks_.size(); ++i) {
      std::function<void()> callback = std::move(callbacks_[i]);
      callback();
    }
    callbacks_.clear();
  }

 private:
  std::vector<std::function<void()>> callbacks_;
};

}  // namespace

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(!final_callbacks.empty(), "autograd::queue_callback: no backward pass runs on this thread "
              "(final callbacks can only be queued during backward)");
  EMBER_CHECK(static_cast<bool>(callback), "autograd::queue_callback: the callback is empty");
  final_callbacks.back()->push_back(std::move(callback));
}

bool in_backward_pass() { return !final_callbacks.empty(); }

variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool accumulate_grad, bool batched) {
  EMBER_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(), "backward: got ", roots.size(),
              " tensors but ", grad_roots.size(), " gradients");
  EMBER_CHECK(!batched || (!accumulate_grad && grad_roots.size() == roots.size()),
              "autograd::grad: is_grads_batched needs a batched gradient for every output");
  int64_t batch = -1;
  FinalCallbacksScope callbacks;
  StreamSync streams;
  GraphTask task;
  std::vector<std::pair<size_t, Tensor>> seeds;
  // Keep the root nodes alive for the whole pass (a leaf root's accumulator
  // is held weakly by the leaf: freed here, its address could be reused by
  // another accumulator made below and mistaken for it).
  std::vector<std::shared_ptr<Node>> keep;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& root = roots[i];
    EMBER_CHECK(root.defined(), "backward: tensor ", i, " is undefined");
    Edge edge = gradient_edge(root);
    EMBER_CHECK(edge.is_valid(), "backward: element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots.empty() ? Tensor() : grad_roots[i];
    if (batched) {
      EMBER_CHECK(g.defined() && g.dim() == root.dim() + 1 && g.sizes().slice(1) == root.sizes() &&
                      (batch < 0 || g.size(0) == batch),
                  "autograd::grad: with is_grads_batched, grad_outputs[", i, "] must have shape [B] + ",
                  root.sizes(), " with the same B for every output, got ",
                  g.defined() ? ember::detail::concat(g.sizes()) : std::string("undefined"));
      batch = g.size(0);
    } else if (!g.defined()) {
      EMBER_CHECK(root.numel() == 1, "backward: grad can be implicitly created only for scalar outputs, but tensor ", i,
                  " has shape ", root.sizes());
      g = ones_like(root);
    } else {
      EMBER_CHECK(g.sizes() == root.sizes(), "backward: gradient ", i, " has shape ", g.sizes(),
                  " but the tensor has shape ", root.sizes());
    }
    keep.push_back(edge.function);
    const size_t idx = task.add(edge.function.get());
    seeds.emplace_back(idx, Tensor());
    Tensor& slot = task.buffers[idx][edge.input_nr];
    deliver(slot, fit_gradient(g, *edge.function, i, edge.function->input_metadata(edge.input_nr), batched),
            std::nullopt, edge.function->stream(), create_graph, streams);
  }

  // 1. discovery and dependency counts
  for (size_t k = 0; k < task.nodes.size(); ++k) {
    for (const Edge& e : task.nodes[k]->next_edges()) {
      if (!e.is_valid()) continue;
      const size_t j = task.add(e.function.get());
      ++task.deps[j];
    }
  }

  // 2. targets
  std::vector<std::shared_ptr<Node>> input_nodes;
  if (!inputs.empty()) {
    std::vector<char> is_target(task.nodes.size(), 0);
    task.captured.resize(inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) {
      EMBER_CHECK(inputs[k].defined() && inputs[k].requires_grad(), accumulate_grad ? "backward" : "autograd::grad",
                  ": input ", k, " does not require grad");
      Edge e = gradient_edge(inputs[k]);
      input_nodes.push_back(e.function);
      auto it = task.index.find(e.function.get());
      if (it == task.index.end()) continue;  // not reached by the graph
      if (accumulate_grad && dynamic_cast<AccumulateGrad*>(e.function.get())) is_target[it->second] = 1;
      else task.captures[it->second].emplace_back(e.input_nr, k);
    }
    mark_needed(task, is_target);
  } else {
    task.execute.assign(task.nodes.size(), 1);
  }

  // 3. execution
  using Ready = std::pair<uint64_t, size_t>;
  std::priority_queue<Ready> ready;
  for (auto& [idx, unused] : seeds)
    if (task.deps[idx] == 0) {
      ready.emplace(task.nodes[idx]->sequence_nr(), idx);
      task.deps[idx] = -1;  // queued once even when several roots share it
    }
  const bool anomaly = is_anomaly_enabled();
  AutoGradMode grad_mode(create_graph);
  while (!ready.empty()) {
    const size_t idx = ready.top().second;
    ready.pop();
    Node* node = task.nodes[idx];
    // The node's work (hooks, formula, fitting, delivery) queues on its forward's stream.
    const std::optional<Stream> stream = node->stream();
    std::optional<StreamGuard> on_stream;
    if (stream) {
      streams.enter(*stream);
      on_stream.emplace(*stream);
    }
    variable_list grads = std::move(task.buffers[idx]);
    bool any_defined = false;
    for (const Tensor& g : grads) any_defined = any_defined || g.defined();
    if (any_defined) node->run_tensor_pre_hooks(grads, batched);
    if (auto it = task.captures.find(idx); it != task.captures.end())
      for (auto [input_nr, slot] : it->second) task.captured[slot] = grads[input_nr];

    variable_list outputs;
    if (task.execute[idx] && any_defined) {
      try {
        if (!batched) {
          outputs = node->apply(std::move(grads));
        } else if (node->supports_batched_grads()) {
          for (size_t i = 0; i < grads.size(); ++i)
            if (!grads[i].defined()) {
              const InputMetadata& md = node->input_metadata(i);
              DimVector sizes{batch};
              for (int64_t d : md.sizes) sizes.push_back(d);
              grads[i] = zeros(sizes, TensorOptions(md.dtype).device(md.device));
            }
          outputs = node->apply(std::move(grads));
        } else {
          outputs = apply_per_batch_entry(*node, grads, batch);
        }
      } catch (const Error& e) {
        if (!anomaly) throw;
        EMBER_FAIL(e.what(), " [in ", node->name(), ", recorded by the forward op '", node->forward_op(), "']");
      }
      if (anomaly) check_anomaly(*node, outputs);
    }
    if (!keep_graph && task.execute[idx]) node->release_variables();

    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.is_valid()) continue;
      const size_t j = task.index.at(e.function.get());
      if (i < outputs.size() && outputs[i].defined()) {
        Tensor g = fit_gradient(std::move(outputs[i]), *node, i, e.function->input_metadata(e.input_nr), batched);
        deliver(task.buffers[j][e.input_nr], std::move(g), stream, e.function->stream(), create_graph, streams);
      }
      if (--task.deps[j] == 0) ready.emplace(task.nodes[j]->sequence_nr(), j);
    }
  }

  streams.finish();

  // backward(inputs=...) on non-leaf inputs accumulates into their .grad.
  if (accumulate_grad && !inputs.empty()) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!task.captured[k].defined()) continue;
      Tensor input = inputs[k];
      Tensor& slot = input.mutable_grad();
      slot = slot.defined() ? slot + task.captured[k] : task.captured[k].clone();
    }
    callbacks.run();
    return {};
  }
  callbacks.run();
  return task.captured;
}

}  // namespace ember::autograd
