#include "ember/nn/utils/rnn.h"

#include <algorithm>
#include <numeric>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ember/ops/shape.h"

// Note [Packing with one gather]: packing and padding are each a single
// recorded index op (index_select / index_copy on the flattened [T*B, *]
// tensor) with positions computed on the host, so the sort permutation and
// the batch_first layout cost no extra copies, and the backward is one
// index_add / index_select.

namespace ember::nn::utils::rnn {

namespace {

std::vector<int64_t> to_vector(const Tensor& t, const char* what) {
  EMBER_CHECK(t.defined() && t.dim() == 1, what, " must be a 1-d tensor");
  EMBER_CHECK(t.is_cpu(), what, " must be a CPU tensor, got one on ", t.device());
  EMBER_CHECK(!t.is_floating_point() && !t.is_complex(), what, " must be an integer tensor, got ", t.dtype());
  Tensor c = t.to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

Tensor index_tensor(const std::vector<int64_t>& v, Device device) {
  return tensor(v, TensorOptions(kInt64)).to(device);
}

// Sizes [lead..., trailing...].
DimVector shape_of(std::initializer_list<int64_t> lead, IntArrayRef trailing) {
  DimVector s(lead);
  for (int64_t v : trailing) s.push_back(v);
  return s;
}
DimVector rows_then(int64_t rows, IntArrayRef trailing) { return shape_of({rows}, trailing); }

}  // namespace

PackedSequence PackedSequence::to(DType dtype) const {
  return PackedSequence{data.to(dtype), batch_sizes, sorted_indices, unsorted_indices};
}

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return {};
  Tensor out = empty_like(permutation, TensorOptions(kInt64));
  NoGradGuard no_grad;
  out.scatter_(0, permutation.to(kInt64), arange(permutation.numel(), TensorOptions(kInt64).device(permutation.device())));
  return out;
}

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first,
                                    bool enforce_sorted) {
  return pack_padded_sequence(input, to_vector(lengths, "pack_padded_sequence: lengths"), batch_first,
                              enforce_sorted);
}

PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<int64_t>& lengths, bool batch_first,
                                    bool enforce_sorted) {
  EMBER_CHECK(input.defined() && input.dim() >= 2,
              "pack_padded_sequence: expected an input of at least 2 dims ([T, B, *] or [B, T, *]), got sizes ",
              input.defined() ? input.sizes() : IntArrayRef{});
  const int64_t T = input.size(batch_first ? 1 : 0), B = input.size(batch_first ? 0 : 1);
  EMBER_CHECK(static_cast<int64_t>(lengths.size()) == B,
              "pack_padded_sequence: expected `len(lengths)` to be equal to batch_size, but got ", lengths.size(),
              " (batch_size=", B, ")");
  std::vector<int64_t> order(B);
  std::iota(order.begin(), order.end(), 0);
  if (enforce_sorted) {
    for (int64_t b = 1; b < B; ++b)
      EMBER_CHECK(lengths[b] <= lengths[b - 1],
                  "pack_padded_sequence: `lengths` array must be sorted in decreasing order when "
                  "`enforce_sorted` is True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                  "pack_sequence to sidestep this requirement if you do not need ONNX exportability.");
  } else {
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; });
  }
  for (int64_t len : lengths) {
    EMBER_CHECK(len > 0,
                "pack_padded_sequence: length of all samples has to be greater than 0, but found an element in "
                "'lengths' that is <= 0");
    EMBER_CHECK(len <= T, "pack_padded_sequence: a length (", len, ") exceeds the padded sequence length ", T);
  }
  const int64_t max_len = B == 0 ? 0 : lengths[order[0]];
  std::vector<int64_t> batch_sizes(max_len), positions;
  for (int64_t t = 0; t < max_len; ++t) {
    int64_t bs = 0;
    while (bs < B && lengths[order[bs]] > t) ++bs;
    batch_sizes[t] = bs;
    for (int64_t b = 0; b < bs; ++b) positions.push_back(batch_first ? order[b] * T + t : t * B + order[b]);
  }
  Tensor flat = input.reshape(rows_then(T * B, input.sizes().slice(2)));
  PackedSequence out;
  out.data = flat.index_select(0, index_tensor(positions, input.device()));
  out.batch_sizes = tensor(batch_sizes, TensorOptions(kInt64));
  if (!enforce_sorted) {
    out.sorted_indices = index_tensor(order, input.device());
    out.unsorted_indices = invert_permutation(out.sorted_indices);
  }
  return out;
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value, std::optional<int64_t> total_length) {
  EMBER_CHECK(sequence.data.defined() && sequence.data.dim() >= 1,
              "pad_packed_sequence: the PackedSequence has no data");
  const std::vector<int64_t> bs = to_vector(sequence.batch_sizes, "pad_packed_sequence: batch_sizes");
  const int64_t max_len = static_cast<int64_t>(bs.size());
  const int64_t B = max_len == 0 ? 0 : bs[0];
  int64_t T = max_len;
  if (total_length) {
    EMBER_CHECK(*total_length >= max_len,
                "pad_packed_sequence: expected total_length to be at least the length of the longest sequence in "
                "input, but got total_length=",
                *total_length, " and max sequence length being ", max_len);
    T = *total_length;
  }
  std::vector<int64_t> order(B);
  if (sequence.sorted_indices.defined())
    order = to_vector(sequence.sorted_indices.cpu(), "pad_packed_sequence: sorted_indices");
  else
    std::iota(order.begin(), order.end(), 0);
  EMBER_CHECK(static_cast<int64_t>(order.size()) == B, "pad_packed_sequence: sorted_indices has ", order.size(),
              " entries for a batch of ", B);
  std::vector<int64_t> positions, lengths(B, 0);
  for (int64_t t = 0; t < max_len; ++t)
    for (int64_t b = 0; b < bs[t]; ++b) {
      positions.push_back(batch_first ? order[b] * T + t : t * B + order[b]);
      lengths[order[b]] = t + 1;
    }
  EMBER_CHECK(static_cast<int64_t>(positions.size()) == sequence.data.size(0), "pad_packed_sequence: data has ",
              sequence.data.size(0), " rows but batch_sizes sum to ", positions.size());
  const IntArrayRef trailing = sequence.data.sizes().slice(1);
  Tensor padded = full(rows_then(T * B, trailing), padding_value, sequence.data.options())
                      .index_copy(0, index_tensor(positions, sequence.data.device()), sequence.data);
  const DimVector shape = shape_of({batch_first ? B : T, batch_first ? T : B}, trailing);
  return {padded.view(shape), tensor(lengths, TensorOptions(kInt64))};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  const Tensor& first = sequences[0];
  EMBER_CHECK(first.defined() && first.dim() >= 1, "pad_sequence: sequences must have at least 1 dim");
  const IntArrayRef trailing = first.sizes().slice(1);
  const int64_t B = static_cast<int64_t>(sequences.size());
  int64_t T = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    EMBER_CHECK(s.defined() && s.dim() == first.dim() && s.sizes().slice(1) == trailing,
                "pad_sequence: sequence ", i, " has sizes ", s.defined() ? s.sizes() : IntArrayRef{},
                " but sequence 0 has trailing sizes ", trailing, " (all must match after dim 0)");
    T = std::max(T, s.size(0));
  }
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < sequences[i].size(0); ++j) positions.push_back(batch_first ? i * T + j : j * B + i);
  Tensor data = cat(sequences, 0);
  Tensor padded = full(rows_then(T * B, trailing), padding_value, data.options())
                      .index_copy(0, index_tensor(positions, data.device()), data);
  return padded.view(shape_of({batch_first ? B : T, batch_first ? T : B}, trailing));
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.defined() && s.dim() > 0 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), lengths, false, enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
