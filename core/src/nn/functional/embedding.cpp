// embedding (a recorded index_select whose backward is PyTorch's
// embedding_dense_backward: index_add of the gradient rows, padding_idx rows
// skipped, optionally divided by index frequency) and embedding_bag (the
// looked-up rows reduced per bag with recorded index_add / scatter_reduce,
// so its gradients come from those ops' formulas).
#include "ember/nn/functional/embedding.h"

#include <vector>

#include "autograd/record.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/ops/sort.h"

namespace ember::nn::functional {

namespace {

void check_indices(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK(t.dtype() == kInt64 || t.dtype() == kInt32, op, ": Expected tensor for argument '", what,
              "' to have one of the following scalar types: Long, Int; but got ", t.dtype(), " instead");
}

void check_weight(const Tensor& weight, const char* op) {
  EMBER_CHECK(weight.defined(), op, ": weight is undefined");
  EMBER_CHECK(weight.dim() == 2, op, ": 'weight' must be 2-D [num_embeddings, embedding_dim], got sizes ",
              weight.sizes());
}

// padding_idx wrapped into [0, num).
std::optional<int64_t> wrap_padding_idx(std::optional<int64_t> padding_idx, int64_t num, const char* op) {
  if (!padding_idx) return std::nullopt;
  const int64_t p = *padding_idx;
  EMBER_CHECK(p < num && p >= -num, op, ": Padding_idx must be within num_embeddings (got padding_idx=", p,
              " for ", num, " embeddings)");
  return p < 0 ? p + num : p;
}

void check_range(const Tensor& idx, int64_t num, const char* op) {
  if (idx.numel() == 0) return;
  const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
  EMBER_CHECK(lo >= 0 && hi < num, op, ": index out of range in self: index ", lo < 0 ? lo : hi, " for ", num,
              " embeddings");
}

// grad [..., D] -> [num, D]: gradient rows added to the rows they were read from.
Tensor embedding_backward(const Tensor& grad, const Tensor& idx, int64_t num, std::optional<int64_t> padding_idx,
                          bool scale_grad_by_freq) {
  const int64_t dim = grad.size(-1);
  Tensor g = grad.reshape({idx.numel(), dim});  // not -1: embedding_dim may be 0
  if (padding_idx) g = g.masked_fill((idx == *padding_idx).unsqueeze(1), 0);
  if (scale_grad_by_freq) {
    Tensor counts = zeros({num}, g.options()).index_add(0, idx, ones({idx.numel()}, g.options()));
    g = g / counts.index_select(0, idx).unsqueeze(1);
  }
  return zeros({num, dim}, g.options()).index_add(0, idx, g);
}

}  // namespace

Tensor& embedding_renorm_(Tensor& weight, const Tensor& input, double max_norm, double norm_type) {
  check_weight(weight, "embedding_renorm_");
  check_indices(input, "embedding_renorm_", "indices");
  NoGradGuard no_grad;
  Tensor idx = input.reshape({-1}).to(kInt64);
  check_range(idx, weight.size(0), "embedding_renorm_");
  if (idx.numel() == 0) return weight;
  Tensor rows = std::get<0>(unique(idx));
  Tensor selected = weight.index_select(0, rows);
  Tensor norms = selected.norm(norm_type, {1}, /*keepdim=*/true);
  Tensor scale = where(norms > max_norm, max_norm / (norms + 1e-7), ones_like(norms));
  weight.index_copy_(0, rows, selected * scale);
  return weight;
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  check_weight(weight, "embedding");
  EMBER_CHECK(input.defined(), "embedding: input is undefined");
  check_indices(input, "embedding", "indices");
  EMBER_CHECK(!o.sparse, "embedding: sparse gradients are not supported");
  const int64_t num = weight.size(0), dim = weight.size(1);
  const std::optional<int64_t> padding_idx = wrap_padding_idx(o.padding_idx, num, "embedding");
  if (o.max_norm) {
    Tensor w = weight;
    embedding_renorm_(w, input, *o.max_norm, o.norm_type);
  }
  Tensor idx = input.reshape({-1}).to(kInt64).contiguous();
  check_range(idx, num, "embedding");
  autograd::OpRecorder rec("embedding", {weight});
  DimVector shape(input.sizes());
  shape.push_back(dim);
  Tensor out = weight.index_select(0, idx).reshape(shape);
  if (rec) {
    // The indices are kept by value: a private copy, so later in-place
    // writes to `input` cannot change the gradient.
    Tensor saved = idx.impl()->data() == input.impl()->data() ? idx.clone() : idx;
    rec.record(out, [saved, num, padding_idx, freq = o.scale_grad_by_freq](autograd::BackwardContext& c) {
      return autograd::variable_list{embedding_backward(c.grads[0], saved, num, padding_idx, freq)};
    });
  }
  return out;
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  const char* op = "embedding_bag";
  check_weight(weight, op);
  EMBER_CHECK(input.defined(), op, ": input is undefined");
  check_indices(input, op, "input");
  EMBER_CHECK(o.mode == "sum" || o.mode == "mean" || o.mode == "max", op,
              ": mode has to be one of sum, mean or max, got '", o.mode, "'");
  EMBER_CHECK(!o.sparse, op, ": sparse gradients are not supported");
  const int64_t num = weight.size(0), dim = weight.size(1);
  const std::optional<int64_t> padding_idx = wrap_padding_idx(o.padding_idx, num, op);

  // Flatten to 1-d indices + offsets (PyTorch's F.embedding_bag).
  Tensor idx, offsets, psw = o.per_sample_weights;
  if (psw.defined()) {
    EMBER_CHECK(o.mode == "sum", op, ": per_sample_weights was not None. per_sample_weights is only supported for "
                "mode='sum' (got mode='", o.mode, "'). Please open a feature request on GitHub.");
    EMBER_CHECK(psw.sizes() == input.sizes(), op, ": per_sample_weights of shape ", psw.sizes(),
                " must have the shape of input ", input.sizes());
    EMBER_CHECK(psw.dtype() == weight.dtype(), op, ": per_sample_weights (", psw.dtype(),
                ") must have the dtype of weight (", weight.dtype(), ")");
  }
  if (input.dim() == 2) {
    EMBER_CHECK(!o.offsets.defined(), op, ": If input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type Tensor");
    offsets = arange(0, input.numel(), std::max<int64_t>(input.size(1), 1), kInt64);
    if (input.size(1) == 0) offsets = zeros({input.size(0)}, kInt64);
    idx = input.reshape({-1});
    if (psw.defined()) psw = psw.reshape({-1});
  } else {
    EMBER_CHECK(input.dim() == 1, op, ": input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    EMBER_CHECK(o.offsets.defined(), op, ": offsets has to be a 1D Tensor but got None");
    EMBER_CHECK(o.offsets.dim() == 1, op, ": offsets has to be a 1D Tensor, got sizes ", o.offsets.sizes());
    check_indices(o.offsets, op, "offsets");
    offsets = o.offsets;
    idx = input;
  }
  idx = idx.to(kInt64).contiguous();
  check_range(idx, num, op);
  if (o.max_norm) {
    Tensor w = weight;
    embedding_renorm_(w, idx, *o.max_norm, o.norm_type);
  }

  // The offsets are checked on the host (one number per bag); the positions
  // are mapped to bags with tensor ops on idx's device.
  const int64_t length = idx.numel();
  const Tensor off = offsets.to(kInt64).cpu().contiguous();
  const int64_t n_off = off.numel();
  EMBER_CHECK(!o.include_last_offset || n_off >= 1, op, ": include_last_offset: number of offsets should be at least 1");
  const int64_t bags = o.include_last_offset ? n_off - 1 : n_off;
  const int64_t* op_ = off.data_ptr<int64_t>();
  if (n_off > 0)
    EMBER_CHECK(op_[0] == 0, op, ": offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                "from position 0. However, got ", op_[0]);
  for (int64_t b = 0; b < n_off; ++b) {
    EMBER_CHECK(op_[b] <= length, op, ": offsets[", b, "] can not be greater than input's length ", length,
                " but got offsets[", b, "]=", op_[b]);
    if (b > 0) EMBER_CHECK(op_[b] >= op_[b - 1], op, ": offsets must be non-decreasing, but offsets[", b, "]=",
                           op_[b], " < offsets[", b - 1, "]=", op_[b - 1]);
  }
  // Bag b holds positions [offsets[b], end_b): the bags cover a prefix of the
  // positions (with include_last_offset, those after the last offset are in none).
  std::vector<int64_t> bag_lengths(static_cast<size_t>(bags));
  for (int64_t b = 0; b < bags; ++b) bag_lengths[b] = (b + 1 < n_off ? op_[b + 1] : length) - op_[b];
  const int64_t covered = bags > 0 ? op_[bags - 1] + bag_lengths[bags - 1] : 0;
  const TensorOptions index_options = TensorOptions(kInt64).device(idx.device());
  // (repeats, output_size): not the (self, repeats) overload.
  Tensor bag = repeat_interleave(tensor(bag_lengths, kInt64).to(idx.device()), std::optional<int64_t>(covered));
  Tensor pos = arange(covered, index_options);
  if (padding_idx) {
    const Tensor keep = idx.slice(0, 0, covered) != *padding_idx;
    pos = pos.masked_select(keep);
    bag = bag.masked_select(keep);
  }
  const int64_t kept = pos.numel();
  Tensor kept_idx = idx.index_select(0, pos);

  Tensor rows = embedding(kept_idx, weight, {.scale_grad_by_freq = o.scale_grad_by_freq});  // [kept, dim]
  if (psw.defined()) rows = rows * psw.index_select(0, pos).unsqueeze(1);
  Tensor base = zeros({bags, dim}, rows.options());
  if (o.mode == "max") {
    if (kept == 0) return base + rows.sum() * 0;  // keeps the graph for an all-empty batch
    return base.scatter_reduce(0, bag.unsqueeze(1).expand({kept, dim}), rows, "amax", /*include_self=*/false);
  }
  Tensor out = base.index_add(0, bag, rows);
  if (o.mode == "mean") {
    Tensor counts = zeros({bags}, rows.options()).index_add(0, bag, ones({kept}, rows.options()));
    out = out / counts.clamp_min(1).unsqueeze(1);
  }
  return out;
}

}  // namespace ember::nn::functional
