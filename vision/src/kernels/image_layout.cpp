// Image geometry and layout from a tensor's sizes and strides.
#include "kernels/image_layout.h"

namespace ember::vision::transforms::detail {

ImageGeometry geometry_of(const Tensor& img) {
  ImageGeometry g;
  const int64_t d = img.dim();
  g.height = img.size(d - 2);
  g.width = img.size(d - 1);
  g.channels = d >= 3 ? img.size(d - 3) : 1;
  for (int64_t i = 0; i + 3 < d; ++i) g.batch *= img.size(i);
  return g;
}

bool is_interleaved(const Tensor& t) { return !(t.stride(3) == 1 || t.size(3) == 1); }

ImageLayout layout_of(const Tensor& t, bool interleaved) {
  const int64_t b = t.size(0), c = t.size(1);
  ImageLayout l;
  l.interleaved = interleaved;
  l.height = t.size(2);
  l.width = t.size(3);
  l.row_stride = t.stride(2);
  l.batch_stride = t.stride(0);
  l.channel_stride = t.stride(1);
  if (interleaved) {
    l.count = b;
    l.pixel = c;
    l.channels = 1;
  } else {
    l.count = b * c;
    l.pixel = 1;
    l.channels = c;
  }
  return l;
}

}  // namespace ember::vision::transforms::detail
