// Seeing [..., C, H, W] tensors as planar or interleaved image batches (on any device).
#include "transforms/geometry/image_layout.h"

#include <ember/core/error.h>
#include <ember/ops/factories.h>

namespace ember::vision::transforms::detail {

BatchedImage batched_image(const Tensor& img, const char* op) {
  EMBER_CHECK(img.defined(), op, ": the image is an undefined tensor");
  EMBER_CHECK(img.dim() >= 2, op, ": expected an image [..., C, H, W] (or [H, W]), got a tensor of shape ",
              img.sizes());
  BatchedImage out;
  Tensor t = img.dim() == 2 ? img.unsqueeze(0) : img;
  const int64_t n = t.dim();
  int64_t batch = 1;
  for (int64_t d = 0; d < n - 3; ++d) {
    out.leading.push_back(t.size(d));
    batch *= t.size(d);
  }
  if (img.dim() == 2) out.leading.push_back(-1);  // marks a 2-d input, squeezed back by unbatched()
  const int64_t c = t.size(n - 3), h = t.size(n - 2), w = t.size(n - 1);
  EMBER_CHECK(c > 0 && h > 0 && w > 0, op, ": the image has an empty dimension, shape ", img.sizes());
  t = t.reshape({batch, c, h, w});
  const bool planar = t.stride(3) == 1 || w == 1;
  const bool interleaved = !planar && t.stride(1) == 1 && t.stride(3) == c;
  if (!planar && !interleaved) t = t.contiguous();
  out.image = t;
  out.interleaved = interleaved;
  out.layout = layout_of(t, interleaved);
  return out;
}

BatchedImage new_image_like(const BatchedImage& like, int64_t height, int64_t width, DType dtype) {
  BatchedImage out;
  out.leading = like.leading;
  out.interleaved = like.interleaved;
  const int64_t b = like.image.size(0), c = like.image.size(1);
  if (like.interleaved)
    out.image = empty_strided({b, c, height, width}, {height * width * c, 1, width * c, c},
                              like.image.options().dtype(dtype));
  else
    out.image = empty({b, c, height, width}, like.image.options().dtype(dtype));
  out.layout = layout_of(out.image, like.interleaved);
  return out;
}

Tensor unbatched(const BatchedImage& out) {
  const Tensor& t = out.image;
  if (!out.leading.empty() && out.leading.back() == -1) {
    std::vector<int64_t> shape(out.leading.begin(), out.leading.end() - 1);
    shape.push_back(t.size(2));
    shape.push_back(t.size(3));
    return t.view(shape);
  }
  std::vector<int64_t> shape = out.leading;
  shape.push_back(t.size(1));
  shape.push_back(t.size(2));
  shape.push_back(t.size(3));
  return t.view(shape);
}

}  // namespace ember::vision::transforms::detail
