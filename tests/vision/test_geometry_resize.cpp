// functional::resize against torchvision 0.14's tensor resize: every mode,
// with and without antialiasing, uint8 / float32 / float64, up, down and
// mixed scales, odd sizes, batches; planar and channels-last inputs; and the
// uint8 kernels' two pass orders against each other.
#include <gtest/gtest.h>

#include <iostream>

#include <ember/ember.h>
#include <ember/vision/transforms/functional.h>

#include "geometry_fixtures.h"
#include "kernels/cpu/resample_uint8.h"
#include "kernels/resample_weights.h"
#include "transforms/geometry/image_layout.h"

using namespace ember;
using namespace ember::testing;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;

namespace geometry_resize_test {

Tensor run_resize(const GeometryCase& c, const Tensor& img) {
  std::optional<int64_t> max_size;
  if (c.has("max_size")) max_size = c.integer("max_size");
  return F::resize(img, c.ints("size"), c.interpolation(), max_size, c.flag("antialias"));
}

TEST(GeometryResize, MatchesTorchvision) {
  int64_t uint8_off_by_one = 0, uint8_total = 0;
  for (const auto& c : geometry_cases("resize")) {
    SCOPED_TRACE(c.name);
    const Tensor img = c.image();
    const Tensor expected = c.expected();
    const Tensor out = run_resize(c, img);
    const bool exact = c.str("interpolation") == "nearest";
    const double tol = exact ? 0.0 : resample_tolerance(img.dtype());
    expect_image_near(out, expected, tol, c.name);
    if (img.dtype() == kUInt8 && !exact) {
      uint8_off_by_one += difference(out, expected, 0.0).count;
      uint8_total += out.numel();
    }
    // Channels-last input: the same values, in a channels-last output.
    const Tensor out_cl = run_resize(c, interleaved(img));
    expect_image_near(out_cl, expected, tol, c.name + " (channels last)");
    if (img.size(-3) > 1) {
      EXPECT_EQ(out_cl.stride(-3), 1) << c.name;
    }
  }
  // Off-by-one uint8 results come from fixed point vs float rounding: rare.
  std::cout << "uint8 resize: " << uint8_off_by_one << " of " << uint8_total << " values off by one\n";
  EXPECT_LT(static_cast<double>(uint8_off_by_one), 0.02 * static_cast<double>(uint8_total));
}

TEST(GeometryResize, SameSizeReturnsTheInput) {
  const Tensor img = geometry_npy("img_u8_3x23x31");
  EXPECT_TRUE(F::resize(img, {23, 31}).is_same(img));
  EXPECT_TRUE(F::resize(img, {23}).is_same(img));  // smaller edge already 23, long edge int(23 * 31 / 23) = 31
}

TEST(GeometryResize, OutputSize) {
  // torchvision's _compute_resized_output_size.
  EXPECT_EQ(F::resized_output_size(480, 640, {256}), (std::array<int64_t, 2>{256, 341}));
  EXPECT_EQ(F::resized_output_size(640, 480, {256}), (std::array<int64_t, 2>{341, 256}));
  EXPECT_EQ(F::resized_output_size(480, 640, {224, 100}), (std::array<int64_t, 2>{224, 100}));
  EXPECT_EQ(F::resized_output_size(100, 1000, {50}, 300), (std::array<int64_t, 2>{30, 300}));
  EXPECT_EQ(F::resized_output_size(100, 1000, {50}, 600), (std::array<int64_t, 2>{50, 500}));
  EXPECT_EQ(F::resized_output_size(7, 7, {3}), (std::array<int64_t, 2>{3, 3}));
}

TEST(GeometryResize, OtherDtypesGoThroughFloat32) {
  const Tensor img = geometry_npy("img_u8_3x23x31");
  for (DType dtype : {kInt16, kInt32, kInt64, kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor x = img.to(dtype);
    const Tensor out = F::resize(x, {10, 13}, T::InterpolationMode::Bilinear);
    EXPECT_EQ(out.dtype(), dtype);
    const Tensor ref = F::resize(img.to(kFloat32), {10, 13}, T::InterpolationMode::Bilinear);
    const Tensor expected = is_floating_point(dtype) ? ref.to(dtype) : ref.round().to(dtype);
    expect_image_near(out, expected, 0.0, "dtype");
    // Nearest moves the values themselves.
    expect_image_near(F::resize(x, {40, 7}, T::InterpolationMode::Nearest),
                      F::resize(img, {40, 7}, T::InterpolationMode::Nearest).to(dtype), 0.0, "nearest");
  }
}

TEST(GeometryResize, StridedInputs) {
  // A crop of a channels-last image stays a view with long rows; a transposed
  // image is neither planar nor interleaved and is copied first.
  const Tensor big = geometry_npy("img_u8_3x64x80");
  const Tensor cl = interleaved(big).narrow(-2, 5, 40).narrow(-1, 7, 50);
  const Tensor planar = big.narrow(-2, 5, 40).narrow(-1, 7, 50).contiguous();
  for (bool aa : {false, true}) {
    const Tensor ref = F::resize(planar, {17, 23}, T::InterpolationMode::Bilinear, std::nullopt, aa);
    expect_image_near(F::resize(cl, {17, 23}, T::InterpolationMode::Bilinear, std::nullopt, aa), ref, 0.0, "crop view");
    const Tensor odd = big.transpose(-1, -2).contiguous().transpose(-1, -2);  // W stride > 1, C not 1
    expect_image_near(F::resize(odd, {17, 23}, T::InterpolationMode::Bilinear, std::nullopt, aa),
                      F::resize(big, {17, 23}, T::InterpolationMode::Bilinear, std::nullopt, aa), 0.0, "transposed");
  }
}

TEST(GeometryResize, BothPassOrdersAgree) {
  // The uint8 kernel may run horizontal-first or vertical-first; both are
  // within one unit of each other (and of torchvision, tested above).
  namespace D = ember::vision::transforms::detail;
  const Tensor big = geometry_npy("img_u8_3x64x80");
  for (const Tensor& img : {big, interleaved(big), big.narrow(-3, 0, 1).contiguous()}) {
    const D::BatchedImage b = D::batched_image(img, "test");
    for (auto filter : {D::ResampleFilter::Linear, D::ResampleFilter::Cubic}) {
      for (bool aa : {false, true}) {
        for (auto [oh, ow] : {std::pair<int64_t, int64_t>{9, 11}, {100, 13}, {31, 120}}) {
          auto weights = [&](int64_t in, int64_t out, int64_t multiple) {
            return D::to_fixed(aa ? D::antialias_weights<float>(in, out, filter)
                                  : D::interpolation_weights<float>(in, out, filter),
                               multiple);
          };
          const D::FixedAxisWeights rows = weights(64, oh, 2), cols = weights(80, ow, b.layout.pixel == 1 ? 8 : 2);
          D::BatchedImage h = D::new_image_like(b, oh, ow, kUInt8), v = D::new_image_like(b, oh, ow, kUInt8);
          D::resample_uint8(b.image.data_ptr<uint8_t>(), b.layout, h.image.data_ptr<uint8_t>(), h.layout, &rows, &cols,
                            D::PassOrder::HorizontalFirst);
          D::resample_uint8(b.image.data_ptr<uint8_t>(), b.layout, v.image.data_ptr<uint8_t>(), v.layout, &rows, &cols,
                            D::PassOrder::VerticalFirst);
          expect_image_near(h.image, v.image, 1.0, "pass order");
          // And the float path, rounded, within one unit.
          const Tensor ref = F::resize(img.to(kFloat32), {oh, ow},
                                       filter == D::ResampleFilter::Linear ? T::InterpolationMode::Bilinear
                                                                           : T::InterpolationMode::Bicubic,
                                       std::nullopt, aa);
          expect_image_near(h.image.to(kFloat64), ref.clamp(0, 255).round().to(kFloat64).view(h.image.sizes()), 1.0,
                            "float");
        }
      }
    }
  }
}

TEST(GeometryResize, FlatImagesStayFlat) {
  // Weights sum to exactly one in fixed point.
  for (int64_t v : {0, 1, 128, 254, 255}) {
    const Tensor img = full({3, 37, 53}, v, kUInt8);
    for (auto mode : {T::InterpolationMode::Bilinear, T::InterpolationMode::Bicubic})
      for (bool aa : {false, true}) {
        const Tensor out = F::resize(img, {11, 90}, mode, std::nullopt, aa);
        EXPECT_EQ(out.min().item<int64_t>(), v);
        EXPECT_EQ(out.max().item<int64_t>(), v);
      }
  }
}

TEST(GeometryResize, Errors) {
  const Tensor img = geometry_npy("img_u8_3x23x31");
  EXPECT_THROW(F::resize(img, {}), Error);
  EXPECT_THROW(F::resize(img, {1, 2, 3}), Error);
  EXPECT_THROW(F::resize(img, {0, 5}), Error);
  EXPECT_THROW(F::resize(img, {10, 10}, T::InterpolationMode::Bilinear, 20), Error);  // max_size with (h, w)
  EXPECT_THROW(F::resize(img, {24}, T::InterpolationMode::Bilinear, 20), Error);      // max_size <= size
  EXPECT_THROW(F::resize(img, {10}, T::InterpolationMode::Nearest, std::nullopt, true), Error);
  EXPECT_THROW(F::resize(zeros({5}), {3}), Error);
  EXPECT_THROW(F::resize(zeros({3, 0, 4}), {3}), Error);
  EXPECT_THROW(F::resize(zeros({3, 4, 4}, kBool), {3, 3}), Error);
  try {
    F::resize(img, {0, 5});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("resize"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0"), std::string::npos) << e.what();
  }
}

TEST(GeometryResize, KernelsWriteOnlyTheirRows) {
  // Rows are written by different threads: a kernel must not store past a
  // row's last pixel (the vector stores of 3-value pixels overlap the next
  // pixel). Outputs with a gap after each row, filled with a sentinel, show it.
  namespace D = ember::vision::transforms::detail;
  for (int64_t channels : {1, 3, 4}) {
    const Tensor src = (arange(0, channels * 37 * 53, kInt64) * 7 % 251).to(kUInt8).view({channels, 37, 53});
    for (bool cl : {false, true}) {
      const Tensor img = cl ? interleaved(src) : src;
      const D::BatchedImage b = D::batched_image(img, "test");
      for (bool aa : {false, true}) {
        for (auto [oh, ow] : {std::pair<int64_t, int64_t>{11, 9}, {50, 70}, {13, 53}, {37, 21}}) {
          auto weights = [&](int64_t in, int64_t out) {
            return D::to_fixed(aa ? D::antialias_weights<float>(in, out, D::ResampleFilter::Cubic)
                                  : D::interpolation_weights<float>(in, out, D::ResampleFilter::Linear),
                               2);
          };
          const D::FixedAxisWeights rows = weights(37, oh), cols = weights(53, ow);
          for (auto order : {D::PassOrder::HorizontalFirst, D::PassOrder::VerticalFirst}) {
            // [C, oh, ow] views into buffers whose rows are 5 pixels longer.
            Tensor buffer = cl ? full({oh, ow + 5, channels}, 171, kUInt8) : full({channels, oh, ow + 5}, 171, kUInt8);
            Tensor view = cl ? buffer.narrow(1, 0, ow).permute({2, 0, 1}) : buffer.narrow(2, 0, ow);
            const D::BatchedImage o = D::batched_image(view, "test");
            ASSERT_EQ(o.interleaved, cl && channels > 1);
            D::resample_uint8(b.image.data_ptr<uint8_t>(), b.layout, static_cast<uint8_t*>(view.data_ptr()), o.layout,
                              oh != 37 ? &rows : nullptr, ow != 53 ? &cols : nullptr, order);
            const Tensor gap = cl ? buffer.narrow(1, ow, 5) : buffer.narrow(2, ow, 5);
            EXPECT_EQ(gap.min().item<int64_t>(), 171) << channels << " " << cl << " " << oh << "x" << ow;
            EXPECT_EQ(gap.max().item<int64_t>(), 171) << channels << " " << cl << " " << oh << "x" << ow;
            const Tensor ref = F::resize(src, {oh, ow}, aa ? T::InterpolationMode::Bicubic : T::InterpolationMode::Bilinear,
                                         std::nullopt, aa);
            expect_image_near(view, ref, 1.0, "values");
          }
        }
      }
    }
  }
}

TEST(GeometryResize, Uint8MatchesFloatOverManySizes) {
  // The uint8 kernels (every vector path: planes, 3- and 4-value pixels, the
  // padded row tails, both pass orders) against the float path rounded, within
  // one unit, over sizes drawn at random.
  Generator g(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t c = randint_scalar(1, 6, &g);
    const int64_t h = randint_scalar(1, 70, &g), w = randint_scalar(1, 90, &g);
    const int64_t oh = randint_scalar(1, 70, &g), ow = randint_scalar(1, 90, &g);
    const bool aa = randint_scalar(0, 2, &g) == 1;
    const auto mode = randint_scalar(0, 2, &g) == 1 ? T::InterpolationMode::Bicubic : T::InterpolationMode::Bilinear;
    const Tensor img = randint(0, 256, {c, h, w}, kUInt8, &g);
    const Tensor ref = F::resize(img.to(kFloat32), {oh, ow}, mode, std::nullopt, aa).clamp(0, 255).round();
    const std::string what = std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) + " -> " +
                             std::to_string(oh) + "x" + std::to_string(ow) + (aa ? " aa" : "") +
                             (mode == T::InterpolationMode::Bicubic ? " bicubic" : " bilinear");
    expect_image_near(F::resize(img, {oh, ow}, mode, std::nullopt, aa).to(kFloat32), ref, 1.0, what);
    expect_image_near(F::resize(interleaved(img), {oh, ow}, mode, std::nullopt, aa).to(kFloat32), ref, 1.0,
                      what + " (channels last)");
  }
}

}  // namespace geometry_resize_test
