#pragma once
// Packed sequences for recurrent layers (PyTorch's torch.nn.utils.rnn):
// PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence,
// pack_sequence. Every function is differentiable with respect to the data.
//
//   auto packed = nn::utils::rnn::pack_padded_sequence(x, lengths, /*batch_first=*/true,
//                                                      /*enforce_sorted=*/false);
//   auto [out, state] = lstm->forward(packed);
//   auto [padded, out_lengths] = nn::utils::rnn::pad_packed_sequence(out, true);
#include <optional>
#include <tuple>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::utils::rnn {

// A batch of variable-length sequences, time step by time step: the rows of
// step t are data[offset_t : offset_t + batch_sizes[t]], the sequences sorted
// by decreasing length. batch_sizes is an int64 CPU tensor (non-increasing);
// sorted_indices[i] is the original batch index of sorted sequence i (undefined
// when the batch was already sorted); unsorted_indices is its inverse.
struct PackedSequence {
  Tensor data;
  Tensor batch_sizes;
  Tensor sorted_indices;
  Tensor unsorted_indices;

  // Same sequences, data converted (e.g. to float64).
  PackedSequence to(DType dtype) const;
  bool is_defined() const { return data.defined(); }
};

// The inverse of a permutation (int64, 1-d).
Tensor invert_permutation(const Tensor& permutation);

// Packs a padded batch [T, B, *] (or [B, T, *] with batch_first) of sequences
// with the given lengths (each > 0 and <= T). enforce_sorted: lengths must be
// non-increasing; otherwise the batch is sorted and the permutation recorded.
PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first = false,
                                    bool enforce_sorted = true);
PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<int64_t>& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);

// Inverse of pack_padded_sequence: (padded [T, B, *] or [B, T, *], lengths
// int64 [B]) in the original batch order. total_length pads to that many steps
// (at least the longest sequence).
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

// Stacks sequences [L_i, *] into [max L, B, *] (or [B, max L, *]), padded.
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0.0);

// pack_padded_sequence(pad_sequence(sequences), lengths).
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
