#pragma once
// Shape and combination ops: cat/stack, flip/roll, repeat/tile,
// repeat_interleave, tril/triu and pad, with PyTorch's names and semantics.
#include <optional>
#include <string>

#include "ember/core/tensor.h"

namespace ember {

using TensorList = ArrayRef<Tensor>;

// Concatenates along `dim`. Inputs are promoted to their common dtype; 1-d
// tensors of size 0 are skipped whatever their shape (PyTorch's legacy rule).
// The output is channels-last when every input is.
Tensor cat(TensorList tensors, int64_t dim = 0);
// Writes into `out` (an empty out is resized; its dtype must hold the result).
Tensor& cat_out(Tensor& out, TensorList tensors, int64_t dim = 0);
Tensor concat(TensorList tensors, int64_t dim = 0);
// Joins along a new dim; all inputs must have the same shape.
Tensor stack(TensorList tensors, int64_t dim = 0);
Tensor& stack_out(Tensor& out, TensorList tensors, int64_t dim = 0);
// Column-wise (dim 1, or 0 for 1-d inputs) and row-wise (inputs as at least 2-d) joins.
Tensor hstack(TensorList tensors);
Tensor vstack(TensorList tensors);

Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
// Without dims: rolls the flattened tensor and restores the shape.
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});

// Tensor.repeat: tiles self `repeats[i]` times along dim i (leading new dims allowed).
Tensor repeat(const Tensor& self, IntArrayRef repeats);
// numpy.tile: like repeat, but fewer reps than dims are padded with leading 1s.
Tensor tile(const Tensor& self, IntArrayRef dims);
// Repeats each element (along dim, or of the flattened tensor without dim).
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
// repeat_interleave(repeats): index i repeated repeats[i] times.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);

// Lower/upper triangle of the last two dims (batched); other entries are zero.
// diagonal > 0 moves the boundary above the main diagonal, < 0 below it.
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);

// torch.nn.functional.pad. `pad` lists (left, right) pairs starting from the
// last dim. mode: "constant" (any number of dims, negative pads crop),
// "reflect", "replicate" or "circular" (the last 1-3 dims of a batched or
// unbatched input).
Tensor pad(const Tensor& self, IntArrayRef pad, const std::string& mode = "constant",
           std::optional<double> value = std::nullopt);
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0);

}  // namespace ember
