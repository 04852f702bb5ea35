#pragma once
// Shape handling shared by the text transforms: torchtext's functionals
// accept a sequence (a list of ints or of strings) or a batch (a list of them).
#include <functional>

#include <ember/core/ivalue.h>

namespace ember::text::transforms::detail {

// True for a batch (a list of lists), false for a sequence; anything else
// (a non-list, mixed nesting, items that are neither int nor str) is an
// ember::Error naming `op`.
bool is_batch(const IValue& input, const char* op);
// f applied to the sequence, or to each sequence of the batch.
IValue map_sequences(const IValue& input, const char* op, const std::function<IValue(const IValue&)>& f);

}  // namespace ember::text::transforms::detail
