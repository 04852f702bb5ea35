// torchvision.utils.make_grid and save_image.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <ember/core/error.h>
#include <ember/io/image.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/reduce.h>
#include <ember/ops/shape.h>
#include <ember/vision/utils.h>

namespace ember::vision::utils {

namespace {

// norm_ip: clamp to [low, high], then (x - low) / max(high - low, 1e-5), in place.
void normalize_in_place(Tensor t, double low, double high) {
  t.clamp_(low, high);
  t.sub_(low).div_(std::max(high - low, 1e-5));
}

void normalize_range(Tensor t, const std::optional<std::pair<double, double>>& range) {
  if (range)
    normalize_in_place(t, range->first, range->second);
  else
    normalize_in_place(t, t.min().item<double>(), t.max().item<double>());
}

}  // namespace

Tensor make_grid(const Tensor& input, const MakeGridOptions& o) {
  EMBER_CHECK(input.defined() && input.dim() >= 2 && input.dim() <= 4,
              "make_grid: expected a [B, C, H, W], [C, H, W] or [H, W] tensor, got ",
              input.defined() ? input.sizes() : IntArrayRef{});
  EMBER_CHECK(o.nrow > 0, "make_grid: nrow must be positive, got ", o.nrow);
  EMBER_CHECK(o.padding >= 0, "make_grid: padding must be >= 0, got ", o.padding);
  Tensor t = input;
  if (t.dim() == 2) t = t.unsqueeze(0);
  if (t.dim() == 3) {
    if (t.size(0) == 1) t = cat({t, t, t}, 0);
    t = t.unsqueeze(0);
  }
  if (t.size(1) == 1) t = cat({t, t, t}, 1);
  if (o.normalize) {
    EMBER_CHECK(is_floating_point(t.dtype()), "make_grid: normalize needs a floating point tensor, got ", t.dtype());
    t = t.clone();
    if (o.scale_each) {
      for (int64_t i = 0; i < t.size(0); ++i) normalize_range(t.select(0, i), o.value_range);
    } else {
      normalize_range(t, o.value_range);
    }
  }
  if (t.size(0) == 1) return t.squeeze(0);
  const int64_t nmaps = t.size(0);
  const int64_t xmaps = std::min(o.nrow, nmaps);
  const int64_t ymaps = (nmaps + xmaps - 1) / xmaps;
  const int64_t height = t.size(2) + o.padding, width = t.size(3) + o.padding;
  Tensor grid = full({t.size(1), height * ymaps + o.padding, width * xmaps + o.padding}, o.pad_value,
                     TensorOptions(t.dtype()).device(t.device()));
  int64_t k = 0;
  for (int64_t y = 0; y < ymaps && k < nmaps; ++y)
    for (int64_t x = 0; x < xmaps && k < nmaps; ++x, ++k)
      grid.narrow(1, y * height + o.padding, height - o.padding)
          .narrow(2, x * width + o.padding, width - o.padding)
          .copy_(t.select(0, k));
  return grid;
}

Tensor make_grid(const std::vector<Tensor>& tensors, const MakeGridOptions& o) {
  EMBER_CHECK(!tensors.empty(), "make_grid: the list of tensors is empty");
  return make_grid(stack(tensors, 0), o);
}

void save_image(const Tensor& input, const std::string& path, const MakeGridOptions& o, const std::string& format) {
  Tensor grid = make_grid(input, o);
  EMBER_CHECK(grid.dim() == 3 && (grid.size(0) == 1 || grid.size(0) == 3 || grid.size(0) == 4),
              "save_image: the grid must have 1, 3 or 4 channels, got shape ", grid.sizes());
  // Add 0.5 after unnormalizing to [0, 255] to round to the nearest integer.
  Tensor bytes = grid.mul(255).add_(0.5).clamp_(0, 255).to(kUInt8);
  std::string fmt = format;
  if (fmt.empty()) {
    const auto dot = path.find_last_of('.');
    EMBER_CHECK(dot != std::string::npos, "save_image: cannot tell the format of \"", path,
                "\": give format (\"png\" or \"jpeg\")");
    fmt = path.substr(dot + 1);
  }
  std::transform(fmt.begin(), fmt.end(), fmt.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (fmt == "png") {
    io::write_png(bytes, path);
  } else if (fmt == "jpg" || fmt == "jpeg") {
    io::write_jpeg(bytes, path);
  } else {
    EMBER_FAIL("save_image: unsupported format \"", fmt, "\" for ", path, " (png or jpeg)");
  }
}

void save_image(const std::vector<Tensor>& tensors, const std::string& path, const MakeGridOptions& o,
                const std::string& format) {
  EMBER_CHECK(!tensors.empty(), "save_image: the list of tensors is empty");
  save_image(stack(tensors, 0), path, o, format);
}

}  // namespace ember::vision::utils
