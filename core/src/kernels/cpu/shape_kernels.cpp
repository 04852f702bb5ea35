// CPU kernel of the shape family: the per-dim index-map copy (see kernels/slots/shape_kernels.h).
#include <algorithm>
#include <cstring>

#include "ember/core/parallel.h"
#include "kernels/slots/shape_kernels.h"

namespace ember {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// Moves elements of `Word` (the element size; the dtype does not matter).
template <class Word>
void remap_copy_typed(const Tensor& src, Tensor& out, const std::vector<std::vector<int64_t>>& maps) {
  const Word* in = static_cast<const Word*>(src.data_ptr());
  Word* dst = static_cast<Word*>(out.data_ptr());
  const int64_t nd = out.dim();
  if (nd == 0) {
    dst[0] = in[0];
    return;
  }
  // Source offsets per dim and output position, so the inner loop is a gather.
  std::vector<std::vector<int64_t>> src_off(nd);
  for (int64_t d = 0; d < nd; ++d) {
    src_off[d].resize(maps[d].size());
    const int64_t stride = src.stride(d);
    for (size_t j = 0; j < maps[d].size(); ++j) src_off[d][j] = maps[d][j] * stride;
  }
  const int64_t inner = out.size(nd - 1);
  const int64_t out_inner_stride = out.stride(nd - 1);
  const int64_t* inner_off = src_off[nd - 1].data();
  // The inner map as runs of consecutive source elements: padding and slicing
  // maps are mostly long identity stretches, which then copy with memcpy.
  struct InnerRun {
    int64_t out_start, src_offset, length;
  };
  std::vector<InnerRun> runs;
  const bool unit_src_stride = src.stride(nd - 1) == 1;
  for (int64_t j = 0; j < inner; ++j) {
    if (unit_src_stride && !runs.empty() && inner_off[j] == runs.back().src_offset + runs.back().length) {
      ++runs.back().length;
    } else {
      runs.push_back({j, inner_off[j], 1});
    }
  }
  const int64_t rows = out.numel() / inner;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    // Odometer over the outer dims, started at row `begin`.
    std::vector<int64_t> idx(nd, 0);
    int64_t rest = begin;
    for (int64_t d = nd - 2; d >= 0; --d) {
      idx[d] = rest % out.size(d);
      rest /= out.size(d);
    }
    for (int64_t r = begin; r < end; ++r) {
      int64_t in_base = 0, out_base = 0;
      for (int64_t d = 0; d < nd - 1; ++d) {
        in_base += src_off[d][idx[d]];
        out_base += idx[d] * out.stride(d);
      }
      const Word* row_in = in + in_base;
      Word* row_out = dst + out_base;
      if (out_inner_stride == 1) {
        for (const InnerRun& run : runs) {
          if (run.length == 1) row_out[run.out_start] = row_in[run.src_offset];
          else std::memcpy(row_out + run.out_start, row_in + run.src_offset, run.length * sizeof(Word));
        }
      } else {
        for (int64_t j = 0; j < inner; ++j) row_out[j * out_inner_stride] = row_in[inner_off[j]];
      }
      for (int64_t d = nd - 2; d >= 0; --d) {
        if (++idx[d] < out.size(d)) break;
        idx[d] = 0;
      }
    }
  });
}

void remap_copy_kernel(const Tensor& src, Tensor& out, const std::vector<std::vector<int64_t>>& maps) {
  if (out.numel() == 0) return;
  switch (out.element_size()) {
    case 1: return remap_copy_typed<uint8_t>(src, out, maps);
    case 2: return remap_copy_typed<uint16_t>(src, out, maps);
    case 4: return remap_copy_typed<uint32_t>(src, out, maps);
    case 8: return remap_copy_typed<uint64_t>(src, out, maps);
    case 16: return remap_copy_typed<Bytes16>(src, out, maps);
    default: EMBER_FAIL("remap_copy: unsupported element size ", out.element_size(), " of ", out.dtype());
  }
}

// Each matrix row keeps one column range; the rest is zero bits, which is zero
// in every dtype.
void triangle_kernel(const Tensor& src, Tensor& out, int64_t diagonal, bool lower) {
  const int64_t rows = src.size(-2), cols = src.size(-1);
  const int64_t total_rows = src.numel() / std::max<int64_t>(cols, 1);
  const size_t es = src.element_size();
  const char* in = static_cast<const char*>(src.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  parallel_for(0, total_rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t i = r % rows;
      const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + diagonal, 0, cols);
      const int64_t hi = lower ? std::clamp<int64_t>(i + diagonal + 1, 0, cols) : cols;
      char* row = dst + r * cols * es;
      const char* src_row = in + r * cols * es;
      std::memset(row, 0, lo * es);
      if (hi > lo) std::memcpy(row + lo * es, src_row + lo * es, (hi - lo) * es);
      std::memset(row + std::max(hi, lo) * es, 0, (cols - std::max(hi, lo)) * es);
    }
  });
}

}  // namespace

// Both move bytes, so every dtype (remap_copy: every element size).
EMBER_REGISTER_KERNEL_FOR_DTYPES(remap_copy_slot, CPU, remap_copy_kernel, kMaskAll);
EMBER_REGISTER_KERNEL_FOR_DTYPES(triangle_slot, CPU, triangle_kernel, kMaskAll);
constexpr uint32_t kTriangleOpDTypes[] = {kMaskAll, kMaskAll};  // triu, tril
static_assert(std::size(kTriangleOpDTypes) == std::size(kTriangleOpNames));
static const bool triangle_op_dtypes_registered = triangle_slot.set_op_dtypes(DeviceType::CPU, kTriangleOpDTypes);

}  // namespace ember
