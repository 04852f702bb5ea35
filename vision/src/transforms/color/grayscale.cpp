// rgb_to_grayscale.
#include <cstring>
#include <vector>

#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "transforms/color/image.h"

namespace ember::vision::transforms::functional {
namespace {

template <class T>
void luma_row(const T* __restrict r, const T* __restrict g, const T* __restrict b, T* __restrict out, int64_t n) {
  for (int64_t x = 0; x < n; ++x) out[x] = detail::luma<T>(r[x], g[x], b[x]);
}

}  // namespace

Tensor rgb_to_grayscale(const Tensor& img, int64_t num_output_channels) {
  const char* op = "rgb_to_grayscale";
  const auto g = detail::image_geometry(img, op, 3);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
  EMBER_CHECK(num_output_channels == 1 || num_output_channels == 3, op,
              ": num_output_channels must be 1 or 3, got ", num_output_channels);
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return rgb_to_grayscale(x, num_output_channels); });

  std::vector<int64_t> out_sizes(img.sizes().begin(), img.sizes().end());
  out_sizes[out_sizes.size() - 3] = num_output_channels;
  Tensor out = empty(out_sizes, img.dtype());
  if (g.numel() == 0) return out;
  const Tensor src = detail::contiguous_image(img);
  const int64_t plane = g.plane();

  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    // One item per (image, row): reads the row of each input channel and
    // writes the row of each output channel.
    const int64_t width = g.width;
    detail::parallel_items(g.batch * g.height, width * 3, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t n = item / g.height, y = item % g.height;
        const T* image = in + n * g.channels * plane + y * width;
        T* o = dst + n * num_output_channels * plane + y * width;
        if (g.channels == 3) {
          luma_row<T>(image, image + plane, image + 2 * plane, o, width);
        } else {
          std::memcpy(o, image, static_cast<size_t>(width) * sizeof(T));
        }
        for (int64_t c = 1; c < num_output_channels; ++c)
          std::memcpy(o + c * plane, o, static_cast<size_t>(width) * sizeof(T));
      }
    });
  });
  return out;
}

}  // namespace ember::vision::transforms::functional
