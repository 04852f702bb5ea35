// Vision's functional transforms on every device (device_test.h): each case
// runs on the CPU and on the device under test, for uint8, float32 and float64
// images, unbatched [C, H, W], batched [B, C, H, W] and (for the geometry
// kernels) the interleaved [C, H, W] view of HWC rows that a JPEG decodes to.
// On each device the result must live on the image's device and equal the
// CPU's bit for bit: the test device runs the CPU's kernels through vision's
// kernel slots, so any difference, any output left on the CPU and any host
// read of device memory (data_ptr() raises there, Note [Host access]) is a
// device assumption in an op file.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <ember/ember.h>
#include <ember/vision/transforms.h>
#include <ember/vision/transforms/functional.h>

#include "device_test.h"
#include "test_device_backend.h"
#include "kernels/slots/color_kernels.h"
#include "kernels/slots/geometry_kernels.h"
#include "kernels/slots/kernel_slot.h"
#include "transforms/augment/mix.h"

using namespace ember;
using namespace ember::testing;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;
using T::InterpolationMode;

namespace transforms_on_device_test {

constexpr uint32_t kU8 = dtype_bit(kUInt8), kF32 = dtype_bit(kFloat32), kF64 = dtype_bit(kFloat64);
constexpr uint32_t kAllImages = kU8 | kF32 | kF64;

struct TransformCase {
  std::string name;
  uint32_t dtypes;                             // the image dtypes the case runs on
  std::function<Tensor(const Tensor&)> fn;     // img -> result (a stack of results for several)
  bool interleaved = false;                    // also on the interleaved [C, H, W] view
};

// Every functional transform that has a kernel slot (and a few compositions
// of core ops around them), with arguments that reach each kernel's paths.
const std::vector<TransformCase>& transform_cases() {
  static const std::vector<TransformCase> cases = {
      // geometry: resize_slot (both pass directions, antialias), gather_pixels_slot, warp_slot
      {"resize_bilinear_down", kAllImages,
       [](const Tensor& x) { return F::resize(x, {5, 7}, InterpolationMode::Bilinear); }, true},
      {"resize_bilinear_up_antialias", kAllImages,
       [](const Tensor& x) { return F::resize(x, {23, 9}, InterpolationMode::Bilinear, std::nullopt, true); }, true},
      {"resize_bicubic_antialias", kAllImages,
       [](const Tensor& x) { return F::resize(x, {6}, InterpolationMode::Bicubic, std::nullopt, true); }, true},
      {"resize_bicubic_width_only", kAllImages,
       [](const Tensor& x) { return F::resize(x, {x.size(-2), 5}, InterpolationMode::Bicubic); }, true},
      {"resize_nearest", kAllImages, [](const Tensor& x) { return F::resize(x, {17, 4}, InterpolationMode::Nearest); },
       true},
      {"pad_edge", kAllImages, [](const Tensor& x) { return F::pad(x, {2, 1, 0, 3}, 0, "edge"); }, true},
      {"pad_reflect", kAllImages, [](const Tensor& x) { return F::pad(x, {3, 2}, 0, "reflect"); }, true},
      {"pad_symmetric_negative", kAllImages, [](const Tensor& x) { return F::pad(x, {-1, 4, 2, -2}, 0, "symmetric"); },
       true},
      {"pad_constant", kAllImages, [](const Tensor& x) { return F::pad(x, {1, 2, 3, 4}, 7); }},
      {"affine_nearest", kAllImages,
       [](const Tensor& x) { return F::affine(x, 23.0, {2, -1}, 1.2, {5.0, -3.0}, InterpolationMode::Nearest); },
       true},
      {"affine_bilinear_fill", kAllImages,
       [](const Tensor& x) {
         return F::affine(x, -41.0, {1, 3}, 0.8, {0.0, 7.0}, InterpolationMode::Bilinear, {0.25, 0.5, 1.0});
       },
       true},
      {"rotate_expand_fill", kAllImages,
       [](const Tensor& x) { return F::rotate(x, 33.0, InterpolationMode::Bilinear, true, {}, {0.75}); }, true},
      {"perspective", kAllImages,
       [](const Tensor& x) {
         return F::perspective(x, {{0, 0}, {10, 0}, {10, 12}, {0, 12}}, {{1, 2}, {9, 0}, {11, 11}, {0, 10}},
                               InterpolationMode::Bilinear, {0.5});
       },
       true},
      {"crop_center_crop_flips", kAllImages,
       [](const Tensor& x) {
         return F::hflip(F::center_crop(F::crop(x, -1, 2, 9, 8), {6, 10})) + F::vflip(F::crop(x, 1, 0, 6, 10));
       }},
      // color: every color slot
      {"rgb_to_grayscale_1", kAllImages, [](const Tensor& x) { return F::rgb_to_grayscale(x, 1); }},
      {"rgb_to_grayscale_3", kAllImages, [](const Tensor& x) { return F::rgb_to_grayscale(x, 3); }},
      {"invert", kAllImages, [](const Tensor& x) { return F::invert(x); }, true},
      {"posterize", kU8, [](const Tensor& x) { return F::posterize(x, 3); }, true},
      {"solarize", kAllImages,
       [](const Tensor& x) { return F::solarize(x, x.dtype() == kUInt8 ? 100.0 : 0.4); }, true},
      {"adjust_brightness", kAllImages, [](const Tensor& x) { return F::adjust_brightness(x, 1.7); }, true},
      {"adjust_contrast", kAllImages, [](const Tensor& x) { return F::adjust_contrast(x, 0.6); }},
      {"adjust_saturation", kAllImages, [](const Tensor& x) { return F::adjust_saturation(x, 2.5); }},
      {"adjust_hue", kAllImages, [](const Tensor& x) { return F::adjust_hue(x, -0.3); }},
      {"adjust_gamma", kAllImages, [](const Tensor& x) { return F::adjust_gamma(x, 0.7, 1.1); }, true},
      {"adjust_sharpness", kAllImages, [](const Tensor& x) { return F::adjust_sharpness(x, 3.0); }},
      {"autocontrast", kAllImages, [](const Tensor& x) { return F::autocontrast(x); }},
      {"equalize", kU8, [](const Tensor& x) { return F::equalize(x); }},
      {"gaussian_blur", kAllImages, [](const Tensor& x) { return F::gaussian_blur(x, {5, 3}, {1.3, 0.8}); }, true},
      {"normalize", kF32 | kF64,
       [](const Tensor& x) { return F::normalize(x, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}); }, true},
      {"normalize_inplace", kF32 | kF64,
       [](const Tensor& x) {
         Tensor y = x.clone();
         Tensor r = F::normalize(y, {0.5}, {0.25}, true);
         EXPECT_TRUE(r.is_same(y));
         return r;
       }},
      {"convert_image_dtype_float32", kU8, [](const Tensor& x) { return F::convert_image_dtype(x, kFloat32); },
       true},
      {"convert_image_dtype_float64", kU8, [](const Tensor& x) { return F::convert_image_dtype(x, kFloat64); },
       true},
      {"convert_image_dtype_normalize", kU8,
       [](const Tensor& x) {
         return F::convert_image_dtype_normalize(x, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}, kFloat32);
       },
       true},
      {"erase", kAllImages,
       [](const Tensor& x) { return F::erase(x, 1, 2, 3, 4, zeros({3, 1, 1}, x.options())); }},
      // augment: the ops of the augmentation spaces in a row
      {"apply_augment_ops", kU8 | kF32,
       [](const Tensor& x) {
         using Op = F::AugmentOp;
         return F::apply_augment_ops(x,
                                     {{Op::ShearX, 0.2}, {Op::TranslateY, -3}, {Op::Rotate, 17}, {Op::Color, 0.4},
                                      {Op::Contrast, -0.3}, {Op::Sharpness, 0.5}, {Op::AutoContrast, 0},
                                      {Op::Solarize, x.dtype() == kUInt8 ? 128.0 : 0.5}},
                                     InterpolationMode::Bilinear, {0.5});
       }},
  };
  return cases;
}

// A deterministic uint8 image [sizes...] with values over the whole range.
Tensor uint8_image(IntArrayRef sizes, uint64_t seed) {
  Generator g(seed);
  return randint(0, 256, sizes, TensorOptions(kUInt8), &g);
}

Tensor as_dtype(const Tensor& u8, DType dtype) {
  return dtype == kUInt8 ? u8 : F::convert_image_dtype(u8, dtype);
}

struct CaseImage {
  std::string layout;
  Tensor cpu, on_device;  // the same image, on the CPU and on the device
};

// The images a case runs on: unbatched and batched, and the interleaved view
// (made on each device, so that the device image has the interleaved strides).
std::vector<CaseImage> images(DType dtype, bool interleaved, const Device& device) {
  std::vector<CaseImage> out;
  for (const auto& [layout, sizes, seed] :
       {std::tuple<std::string, std::vector<int64_t>, uint64_t>{"unbatched", {3, 12, 11}, 11},
        {"batched", {2, 3, 12, 11}, 12}}) {
    const Tensor img = as_dtype(uint8_image(sizes, seed), dtype);
    out.push_back({layout, img, img.to(device)});
  }
  if (interleaved) {
    const Tensor hwc = as_dtype(uint8_image({12, 11, 3}, 13), dtype);
    out.push_back({"interleaved", hwc.permute({2, 0, 1}), hwc.to(device).permute({2, 0, 1})});
    EXPECT_EQ(out.back().on_device.stride(0), 1);
  }
  return out;
}

// The device result against the CPU one: same device as the image, dtype,
// shape and values.
void expect_same_values(const Tensor& cpu, const Tensor& on_device, const Device& device) {
  ASSERT_TRUE(on_device.defined());
  EXPECT_EQ(on_device.device(), device) << "the result is not on the image's device";
  EXPECT_EQ(on_device.dtype(), cpu.dtype());
  ASSERT_EQ(on_device.sizes(), cpu.sizes());
  const Tensor back = on_device.cpu();
  EXPECT_TRUE(equal(back, cpu)) << "the device's result differs from the CPU's";
}

class VisionOnDevice : public OnEachDevice {};

TEST_P(VisionOnDevice, FunctionalTransformsMatchTheCpu) {
  int checked = 0;
  for (const TransformCase& c : transform_cases()) {
    for (DType dtype : {kUInt8, kFloat32, kFloat64}) {
      if ((c.dtypes & dtype_bit(dtype)) == 0) continue;
      for (const CaseImage& img : images(dtype, c.interleaved, device())) {
        SCOPED_TRACE(c.name + " " + std::string(dtype_name(dtype)) + " " + img.layout);
        expect_same_values(c.fn(img.cpu), c.fn(img.on_device), device());
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 150);
}

// Several results at once: five_crop's crops are views of the device image.
TEST_P(VisionOnDevice, FiveCropAndTenCropStayOnTheDevice) {
  const Tensor img = uint8_image({2, 3, 12, 11}, 21);
  const std::vector<Tensor> expected = F::ten_crop(img, {5, 4}, true);
  const std::vector<Tensor> got = F::ten_crop(on_device(img), {5, 4}, true);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) expect_same_values(expected[i], got[i], device());
}

// AugMix's fused uint8 mix (augmix_mix_slot) and the float path, with the
// weights drawn on the host.
TEST_P(VisionOnDevice, AugMixMatchesTheCpu) {
  for (DType dtype : {kUInt8, kFloat32}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tensor img = as_dtype(uint8_image({2, 3, 12, 11}, 31), dtype);
    T::AugMixOptions options;
    options.chain_depth = 2;
    Generator g(5);
    T::AugMixParams params = T::AugMixImpl::get_params(options, 2, 12, 11, &g);
    if (dtype != kUInt8)  // equalize takes uint8 images only (as torchvision's)
      for (auto& chain : params.chains)
        for (auto& step : chain)
          if (step.op == F::AugmentOp::Equalize) step.op = F::AugmentOp::AutoContrast;
    const Tensor expected = T::AugMixImpl::apply(img, params);
    expect_same_values(expected, T::AugMixImpl::apply(on_device(img), params), device());
  }
}

// A seeded pipeline of random transforms draws the same parameters on every
// device (they are sampled on the host) and computes the same image.
TEST_P(VisionOnDevice, SeededPipelineMatchesTheCpu) {
  const Tensor img = uint8_image({3, 20, 18}, 41);
  auto run = [&](const Tensor& x) {
    T::Compose pipeline({T::RandomResizedCrop(14), T::RandomHorizontalFlip(0.5), T::TrivialAugmentWide(),
                         T::ColorJitter(0.4, 0.4, 0.4, 0.1), T::GaussianBlur(3), T::ConvertImageDtype(kFloat32),
                         T::Normalize(std::vector<double>{0.485, 0.456, 0.406},
                                      std::vector<double>{0.229, 0.224, 0.225})});
    manual_seed(7);
    return pipeline(x);
  };
  const Tensor expected = run(img);
  expect_same_values(expected, run(on_device(img)), device());
}

// Every vision slot is listed in the registry and has a kernel on this device.
TEST_P(VisionOnDevice, VisionSlotsAreFilled) {
  const std::set<std::string> expected = {
      "vision.resize",     "vision.gather_pixels", "vision.warp",         "vision.invert",
      "vision.posterize",  "vision.solarize",      "vision.brightness",   "vision.contrast",
      "vision.saturation", "vision.hue",           "vision.gamma",        "vision.sharpness",
      "vision.grayscale",  "vision.autocontrast",  "vision.equalize",     "vision.gaussian_blur",
      "vision.normalize",  "vision.uint8_to_float", "vision.augmix_mix",
      // The detection ops (vision::ops).
      "vision.nms", "vision.roi_align_forward", "vision.roi_align_backward", "vision.roi_pool_forward",
      "vision.roi_pool_backward", "vision.ps_roi_align_forward", "vision.ps_roi_align_backward",
      "vision.ps_roi_pool_forward", "vision.ps_roi_pool_backward", "vision.deform_im2col", "vision.deform_col2im",
      "vision.sigmoid_focal_loss_forward", "vision.sigmoid_focal_loss_backward"};
  std::set<std::string> listed;
  for (const SlotEntry& e : slot_registry()) {
    const std::string name = e.name;
    if (name.rfind("vision.", 0) != 0) continue;
    listed.insert(name);
    EXPECT_NE(e.table[static_cast<int>(device().type)], nullptr) << name << " has no kernel on " << device();
    EXPECT_NE(e.dtype_masks[static_cast<int>(device().type)], 0u) << name << " computes no dtype on " << device();
  }
  EXPECT_EQ(listed, expected);
  for (const std::string& m : missing_kernels(device().type))
    EXPECT_NE(m.rfind("vision.", 0), 0u) << "missing on " << device() << ": " << m;
}

EMBER_INSTANTIATE_ON_EACH_DEVICE(VisionOnDevice);

// The test device fills vision's slots from the CPU's (Note [Test device
// slots of other libraries] in tests/common/test_device_backend.cpp): nothing
// of vision is missing there.
TEST(VisionTestDevice, NoVisionKernelIsMissing) {
  std::vector<std::string> vision_missing;
  for (const std::string& m : missing_kernels(DeviceType::Test))
    if (m.rfind("vision.", 0) == 0) vision_missing.push_back(m);
  EXPECT_TRUE(vision_missing.empty()) << vision_missing.size() << " missing, first: " << vision_missing.front();
}

// Every vision slot has a test-device kernel, whenever it was filled. In a
// shared build, libember_vision is initialized (its slots listed, its CPU
// kernels registered) before the test executable's own initializers, so the
// test device's registration already fills vision's slots and none is left
// for the late fill when the tests start; in a static build the late fill
// covers them.
TEST(VisionTestDevice, SlotsFilledWhenTheDeviceRegistered) {
  const int t = static_cast<int>(DeviceType::Test);
  int vision_slots = 0;
  for (const SlotEntry& e : slot_registry())
    if (std::string(e.name).rfind("vision.", 0) == 0) {
      ++vision_slots;
      EXPECT_NE(e.table[t], nullptr) << e.name;
    }
  EXPECT_EQ(vision_slots, 32);
  const TestDeviceStats stats = test_device_stats();
  EXPECT_GE(stats.slots_filled_at_registration + stats.slots_filled_late, vision_slots);
#if defined(EMBER_TEST_SHARED_LIBS)
  EXPECT_GE(stats.slots_filled_at_registration, vision_slots);
  EXPECT_EQ(stats.slots_filled_late, 0);
#endif
}

// A device whose backend lacks a kernel gets an error naming the op and the
// device, not a crash: the test device with resize's and equalize's kernels
// taken away for the duration of the test.
TEST(VisionTestDevice, MissingKernelNamesTheOpAndTheDevice) {
  auto& resize = vision::resize_slot;
  auto& equalize = vision::equalize_slot;
  const int t = static_cast<int>(DeviceType::Test);
  auto* resize_kernel = resize.kernel(kTestDevice);
  auto* equalize_kernel = equalize.kernel(kTestDevice);
  const uint32_t resize_mask = resize.dtype_masks()[t], equalize_mask = equalize.dtype_masks()[t];
  resize.set(DeviceType::Test, nullptr);
  equalize.set(DeviceType::Test, equalize_kernel, dtype_bit(kFloat32));  // a kernel without uint8
  const Tensor img = uint8_image({3, 8, 8}, 51).to(kTestDevice);
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string resize_error = message([&] { F::resize(img, {4, 4}, InterpolationMode::Bilinear); });
  const std::string equalize_error = message([&] { F::equalize(img); });
  resize.set(DeviceType::Test, resize_kernel, resize_mask);
  equalize.set(DeviceType::Test, equalize_kernel, equalize_mask);
  EXPECT_NE(resize_error.find("resize"), std::string::npos) << resize_error;
  EXPECT_NE(resize_error.find("test"), std::string::npos) << resize_error;
  EXPECT_NE(equalize_error.find("equalize"), std::string::npos) << equalize_error;
  EXPECT_NE(equalize_error.find("uint8"), std::string::npos) << equalize_error;
  EXPECT_NE(equalize_error.find("test"), std::string::npos) << equalize_error;
  // And with the kernels back, the device computes again.
  EXPECT_EQ(F::resize(img, {4, 4}, InterpolationMode::Bilinear).device(), kTestDevice);
}

}  // namespace transforms_on_device_test
