#pragma once
// Memory formats: the dimension orders a dense tensor can be laid out in.
#include <ostream>

#include "ember/core/array_ref.h"

namespace ember {

enum class MemoryFormat : uint8_t {
  Contiguous,      // row-major
  ChannelsLast,    // NCHW logical, NHWC physical (4-d)
  ChannelsLast3d,  // NCDHW logical, NDHWC physical (5-d)
  Preserve,        // keep the input's layout (clone, to, *_like)
};

std::ostream& operator<<(std::ostream& os, MemoryFormat f);

// Strides of a dense tensor of `sizes` laid out in `format`; throws for a
// channels-last format with the wrong number of dims.
DimVector strides_for(IntArrayRef sizes, MemoryFormat format, const char* op = "empty");

// True if the (sizes, strides) pair is exactly the layout `format` produces,
// ignoring the strides of size-1 dims, as PyTorch does.
bool is_contiguous_as(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);

}  // namespace ember
