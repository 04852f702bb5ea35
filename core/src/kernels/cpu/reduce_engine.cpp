#include "kernels/cpu/reduce_engine.h"

namespace ember::reduce_detail {

namespace {
void coalesce(Dims& d) {
  if (d.sizes.size() <= 1) return;
  Dims out;
  for (size_t k = 0; k < d.sizes.size(); ++k) {
    if (!out.sizes.empty() && out.in_strides.back() == d.in_strides[k] * d.sizes[k] &&
        out.out_strides.back() == d.out_strides[k] * d.sizes[k]) {
      out.sizes.back() *= d.sizes[k];
      out.in_strides.back() = d.in_strides[k];
      out.out_strides.back() = d.out_strides[k];
    } else {
      out.sizes.push_back(d.sizes[k]);
      out.in_strides.push_back(d.in_strides[k]);
      out.out_strides.push_back(d.out_strides[k]);
    }
  }
  d = std::move(out);
}
}  // namespace

void split_dims(const Tensor& in, const Tensor& out, uint64_t mask, Dims& kept, Dims& reduced) {
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (in.size(d) == 1) continue;
    Dims& target = (mask >> d & 1) ? reduced : kept;
    target.sizes.push_back(in.size(d));
    target.in_strides.push_back(in.stride(d));
    target.out_strides.push_back((mask >> d & 1) ? 0 : out.stride(d));
  }
  // Kept dims: walk them in the output's memory order would be ideal; logical
  // order keeps out_strides consistent for the contiguous outputs we allocate.
  coalesce(kept);
  // Reduced dims keep logical order (flat indices are row-major over them),
  // merged only where the input is contiguous across them.
  if (reduced.sizes.size() > 1) {
    Dims merged;
    for (size_t k = 0; k < reduced.sizes.size(); ++k) {
      if (!merged.sizes.empty() &&
          merged.in_strides.back() == reduced.in_strides[k] * reduced.sizes[k]) {
        merged.sizes.back() *= reduced.sizes[k];
        merged.in_strides.back() = reduced.in_strides[k];
      } else {
        merged.sizes.push_back(reduced.sizes[k]);
        merged.in_strides.push_back(reduced.in_strides[k]);
        merged.out_strides.push_back(0);
      }
    }
    reduced = std::move(merged);
  }
}

}  // namespace ember::reduce_detail
