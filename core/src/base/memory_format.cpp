#include "ember/core/memory_format.h"

#include "ember/core/checked_size.h"
#include "ember/core/error.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return os << "contiguous_format";
    case MemoryFormat::ChannelsLast: return os << "channels_last";
    case MemoryFormat::ChannelsLast3d: return os << "channels_last_3d";
    case MemoryFormat::Preserve: return os << "preserve_format";
  }
  return os;
}

DimVector strides_for(IntArrayRef sizes, MemoryFormat format, const char* op) {
  const size_t n = sizes.size();
  DimVector strides(n);
  // The stride of a dim is the product of the sizes inside it (zero sizes
  // count as 1, as PyTorch's), which overflows only for empty tensors whose
  // other sizes multiply past int64 (Note [Checked sizes]).
  bool overflow = false;
  auto fill_in_order = [&](std::initializer_list<size_t> order_inner_to_outer) {
    int64_t s = 1;
    size_t left = order_inner_to_outer.size();
    for (size_t d : order_inner_to_outer) {
      strides[d] = s;
      if (--left > 0) overflow |= mul_overflows(s, std::max<int64_t>(sizes[d], 1), &s);
    }
  };
  switch (format) {
    case MemoryFormat::Contiguous:
    case MemoryFormat::Preserve: {
      int64_t s = 1;
      for (size_t i = n; i-- > 0;) {
        strides[i] = s;
        if (i > 0) overflow |= mul_overflows(s, std::max<int64_t>(sizes[i], 1), &s);
      }
      break;
    }
    case MemoryFormat::ChannelsLast:
      EMBER_CHECK(n == 4, op, ": channels_last needs a 4-d tensor, got sizes ", sizes);
      fill_in_order({1, 3, 2, 0});
      break;
    case MemoryFormat::ChannelsLast3d:
      EMBER_CHECK(n == 5, op, ": channels_last_3d needs a 5-d tensor, got sizes ", sizes);
      fill_in_order({1, 4, 3, 2, 0});
      break;
  }
  EMBER_CHECK(!overflow, op, ": the contiguous strides of sizes=", sizes, " overflow int64");
  return strides;
}

bool is_contiguous_as(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  if (format == MemoryFormat::Preserve) format = MemoryFormat::Contiguous;
  if (format == MemoryFormat::ChannelsLast && sizes.size() != 4) return false;
  if (format == MemoryFormat::ChannelsLast3d && sizes.size() != 5) return false;
  for (int64_t s : sizes)
    if (s == 0) return true;  // no element: any strides
  DimVector expected = strides_for(sizes, format);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != 1 && strides[i] != expected[i]) return false;
  return true;
}

}  // namespace ember
