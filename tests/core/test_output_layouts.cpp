// Output layouts (strides) against PyTorch 1.13's (issue 18, item 10): users
// rely on is_contiguous() and channels-last outputs. scripts/fixtures/layouts.py
// records torch's output sizes and strides per op for five input layouts; this
// rebuilds the same inputs and compares. Strides of size-1 dims are skipped:
// they do not change the layout, and PyTorch's are arbitrary there.
#include <gtest/gtest.h>

#include <functional>

#include <ember/ember.h>

#include "tensor_expect.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

// In the order of LAYOUTS in scripts/fixtures/layouts.py.
const char* const kLayouts[] = {"contig", "cl", "transposed", "sliced", "perm"};

// The input of layout `layout` (one of kLayouts) for `shape`; undefined if it
// does not apply (channels-last of a 3-d shape).
Tensor make_input(const std::string& layout, const DimVector& shape, DType dtype) {
  Tensor x = randn(shape, dtype);
  const int64_t nd = static_cast<int64_t>(shape.size());
  if (layout == "contig") return x;
  if (layout == "cl") {
    if (nd == 4) return x.contiguous(MemoryFormat::ChannelsLast);
    if (nd == 5) return x.contiguous(MemoryFormat::ChannelsLast3d);
    return Tensor();
  }
  if (layout == "transposed") return x.transpose(-1, -2);
  if (layout == "sliced") {
    DimVector wide = shape;
    wide.back() *= 2;
    return randn(wide, dtype).slice(-1, 0, std::nullopt, 2);
  }
  DimVector rev;
  for (int64_t d = nd - 1; d >= 0; --d) rev.push_back(d);
  return x.permute(rev).contiguous().permute(rev);
}

struct LayoutCase {
  std::string name;  // fixture core/layouts/<name>.npy
  DimVector shape;
  DType dtype;
  std::function<Tensor(const Tensor&)> fn;
};

std::vector<LayoutCase> cases() {
  const DimVector s4{2, 3, 5, 6}, s3{2, 3, 6}, s5{2, 3, 4, 4, 4};
  const Tensor w32 = randn({4, 3, 3, 3}), w64 = w32.to(kFloat64);
  auto interp = [](std::vector<int64_t> size, std::string mode) {
    return [size, mode](const Tensor& x) { return F::interpolate(x, {.size = size, .mode = mode}); };
  };
  auto half_bounds = [](const Tensor& x, DimVector shape) {
    return std::pair{full(shape, -0.5, x.options()), full(shape, 0.5, x.options())};
  };
  return {
      {"conv2d_f32", s4, kFloat32, [w32](const Tensor& x) { return F::conv2d(x, w32, {.padding = 1}); }},
      {"conv2d_f64", s4, kFloat64, [w64](const Tensor& x) { return F::conv2d(x, w64, {.padding = 1}); }},
      {"batch_norm_train_f32", s4, kFloat32,
       [](const Tensor& x) { return F::batch_norm(x, Tensor(), Tensor(), {.training = true}); }},
      {"batch_norm_train_f64", s4, kFloat64,
       [](const Tensor& x) { return F::batch_norm(x, Tensor(), Tensor(), {.training = true}); }},
      {"batch_norm_eval_f64", s4, kFloat64,
       [](const Tensor& x) { return F::batch_norm(x, zeros({3}, kFloat64), ones({3}, kFloat64)); }},
      {"masked_fill", s4, kFloat32, [](const Tensor& x) { return x.masked_fill(x > 0, 1.0); }},
      {"masked_fill_bcast", s4, kFloat32,
       [](const Tensor& x) { return x.masked_fill(eq(arange(x.size(-1)).remainder(2), 0), 1.0); }},
      {"roll_dim", s4, kFloat32, [](const Tensor& x) { return x.roll({1}, {2}); }},
      {"roll_dims", s4, kFloat32, [](const Tensor& x) { return x.roll({1, 2}, {2, 3}); }},
      {"roll_flat", s4, kFloat32, [](const Tensor& x) { return x.roll({1}); }},
      {"flip_none", s4, kFloat32, [](const Tensor& x) { return x.flip({}); }},
      {"flip_last", s4, kFloat32, [](const Tensor& x) { return x.flip({3}); }},
      {"max_pool2d", s4, kFloat32, [](const Tensor& x) { return F::max_pool2d(x, 2); }},
      {"max_pool2d_f64", s4, kFloat64, [](const Tensor& x) { return F::max_pool2d(x, 2); }},
      {"avg_pool2d", s4, kFloat32, [](const Tensor& x) { return F::avg_pool2d(x, 2); }},
      {"avg_pool2d_f64", s4, kFloat64, [](const Tensor& x) { return F::avg_pool2d(x, 2); }},
      {"adaptive_avg_pool2d", s4, kFloat32, [](const Tensor& x) { return F::adaptive_avg_pool2d(x, {2, 3}); }},
      {"adaptive_max_pool2d", s4, kFloat32, [](const Tensor& x) { return F::adaptive_max_pool2d(x, {2, 3}); }},
      {"max_pool1d", s3, kFloat32, [](const Tensor& x) { return F::max_pool1d(x, 2); }},
      {"avg_pool1d", s3, kFloat32, [](const Tensor& x) { return F::avg_pool1d(x, 2); }},
      {"max_pool3d", s5, kFloat32, [](const Tensor& x) { return F::max_pool3d(x, 2); }},
      {"avg_pool3d", s5, kFloat32, [](const Tensor& x) { return F::avg_pool3d(x, 2); }},
      {"adaptive_avg_pool3d", s5, kFloat32, [](const Tensor& x) { return F::adaptive_avg_pool3d(x, {2, 3, 2}); }},
      {"interpolate_nearest", s4, kFloat32, interp({7, 9}, "nearest")},
      {"interpolate_bilinear", s4, kFloat32, interp({7, 9}, "bilinear")},
      {"interpolate_bilinear_f64", s4, kFloat64, interp({7, 9}, "bilinear")},
      {"interpolate_bicubic", s4, kFloat32, interp({7, 9}, "bicubic")},
      {"interpolate_area", s4, kFloat32, interp({3, 3}, "area")},
      {"interpolate_linear", s3, kFloat32, interp({9}, "linear")},
      {"interpolate_nearest3d", s5, kFloat32, interp({5, 5, 5}, "nearest")},
      {"interpolate_trilinear", s5, kFloat32, interp({5, 5, 5}, "trilinear")},
      {"interpolate_area3d", s5, kFloat32, interp({3, 3, 3}, "area")},
      {"pow_scalar_tensor", s4, kFloat32, [](const Tensor& x) { return pow(Scalar(2.0), x); }},
      {"pow_scalar_tensor_f64", s4, kFloat64, [](const Tensor& x) { return pow(Scalar(2.0), x); }},
      {"clamp_tensor_bounds", s4, kFloat32,
       [=](const Tensor& x) {
         auto [lo, hi] = half_bounds(x, {x.size(-1)});
         return clamp(x, lo, hi);
       }},
      {"clamp_full_bounds", s4, kFloat32,
       [=](const Tensor& x) {
         auto [lo, hi] = half_bounds(x, DimVector(x.sizes()));
         return clamp(x, lo, hi);
       }},
      {"clamp_min_tensor", s4, kFloat32,
       [=](const Tensor& x) { return clamp(x, half_bounds(x, {x.size(-1)}).first, Tensor()); }},
      {"clamp_0d_bounds", s4, kFloat32,
       [=](const Tensor& x) {
         auto [lo, hi] = half_bounds(x, {});
         return clamp(x, lo, hi);
       }},
      {"clamp_scalar", s4, kFloat32, [](const Tensor& x) { return clamp(x, -0.5, 0.5); }},
  };
}

}  // namespace

TEST(OutputLayouts, MatchPytorch) {
  int compared = 0;
  for (const LayoutCase& c : cases()) {
    const Tensor expected = ember::testing::fixture("layouts", c.name);  // [layouts, 1 + 2 * 5]
    for (int64_t i = 0; i < 5; ++i) {
      SCOPED_TRACE(c.name + " on a " + kLayouts[i] + " input");
      const Tensor row = expected[i];
      const int64_t nd = row[0].item<int64_t>();
      const Tensor x = make_input(kLayouts[i], c.shape, c.dtype);
      ASSERT_EQ(x.defined(), nd >= 0);
      if (!x.defined()) continue;
      const Tensor y = c.fn(x);
      ASSERT_EQ(y.dim(), nd);
      for (int64_t d = 0; d < nd; ++d) {
        ASSERT_EQ(y.size(d), row[1 + d].item<int64_t>()) << "size of dim " << d;
        if (y.size(d) > 1) {
          EXPECT_EQ(y.stride(d), row[6 + d].item<int64_t>()) << "stride of dim " << d << ", strides " << y.strides();
        }
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 36 * 5 + 3 * 4);  // every layout that applies (no channels-last for the three 3-d cases)
}
