// The augmentation spaces of AutoAugment, RandAugment, TrivialAugmentWide and
// AugMix, with torchvision's float32 magnitude bins.
//
// Note [torch.linspace bins]
// The magnitudes are torch.linspace(start, end, num_bins) values in float32,
// and they matter to the last bit: TranslateX/Y and Posterize truncate them
// with int(), Solarize compares pixels with them. torch 1.13's CPU kernel
// (RangeFactoriesKernel.cpp, AVX2 build as Debian's) computes
//   step = (end - start) / (steps - 1)                       in float
//   value[i] = start + step * i          for i <  steps / 2   (one fused multiply-add)
//              end - step * (steps - i - 1) otherwise         (one fused multiply-add)
// except that it fills the first floor(steps / 16) * 16 values eight at a time:
// each group of eight starts from that formula at its first index and adds
// k * step (k = 0..7, rounded twice: no fused multiply-add). GCC contracts the
// scalar expressions into FMAs in the AVX2 kernel file; this file is compiled
// with -ffp-contract=off and spells the FMAs out, so the bins equal torch's
// (checked against torchvision's spaces in tests/vision/test_autoaugment.cpp).
#include <cmath>

#include <ember/core/error.h>

#include "ember/vision/transforms/functional/augment.h"

namespace ember::vision::transforms::functional {
namespace {

std::vector<double> torch_linspace_f32(double start_value, double end_value, int64_t steps) {
  const auto start = static_cast<float>(start_value);
  const auto end = static_cast<float>(end_value);
  if (steps == 1) return {start};
  const float step = (end - start) / static_cast<float>(steps - 1);
  const int64_t halfway = steps / 2;
  auto at = [&](int64_t i) {
    return i < halfway ? std::fma(step, static_cast<float>(i), start)
                       : std::fma(-step, static_cast<float>(steps - i - 1), end);
  };
  std::vector<double> out(static_cast<size_t>(steps));
  constexpr int64_t kLanes = 8;  // AVX2 float vectors, filled two at a time
  const int64_t vectorized = steps / (2 * kLanes) * (2 * kLanes);
  for (int64_t i = 0; i < vectorized; i += kLanes) {
    const float base = at(i);
    for (int64_t k = 0; k < kLanes; ++k) {
      const float offset = static_cast<float>(k) * step;
      out[static_cast<size_t>(i + k)] = base + offset;
    }
  }
  for (int64_t i = vectorized; i < steps; ++i) out[static_cast<size_t>(i)] = at(i);
  return out;
}

// top - (torch.arange(num_bins) / ((num_bins - 1) / divisor)).round().int():
// a float32 division (the Python float divisor rounded to float32), rounded
// half to even.
std::vector<double> posterize_bins(int64_t top, int64_t num_bins, double divisor) {
  const auto d = static_cast<float>(static_cast<double>(num_bins - 1) / divisor);
  std::vector<double> out;
  for (int64_t i = 0; i < num_bins; ++i) {
    const float q = static_cast<float>(i) / d;
    out.push_back(static_cast<double>(top - static_cast<int64_t>(std::nearbyint(q))));
  }
  return out;
}

void check_bins(int64_t num_bins, const char* who) {
  // One bin would make Posterize's bins 0 / 0 (torchvision then fails when it draws Posterize).
  EMBER_CHECK(num_bins >= 2, who, ": the number of magnitude bins must be at least 2, got ", num_bins);
}

void check_size(int64_t height, int64_t width, const char* who) {
  EMBER_CHECK(height > 0 && width > 0, who, ": the image size must be positive, got ", height, "x", width);
}

AugmentOpSpace op(AugmentOp o, std::vector<double> magnitudes, bool is_signed) {
  return {o, std::move(magnitudes), is_signed};
}

AugmentOpSpace no_magnitude(AugmentOp o) { return {o, {}, false}; }

// The 13 ops RandAugment and AutoAugment share, after RandAugment's Identity.
void add_common_ops(AugmentationSpace& s, int64_t n, int64_t height, int64_t width) {
  using A = AugmentOp;
  s.push_back(op(A::ShearX, torch_linspace_f32(0.0, 0.3, n), true));
  s.push_back(op(A::ShearY, torch_linspace_f32(0.0, 0.3, n), true));
  s.push_back(op(A::TranslateX, torch_linspace_f32(0.0, 150.0 / 331.0 * static_cast<double>(width), n), true));
  s.push_back(op(A::TranslateY, torch_linspace_f32(0.0, 150.0 / 331.0 * static_cast<double>(height), n), true));
  s.push_back(op(A::Rotate, torch_linspace_f32(0.0, 30.0, n), true));
  s.push_back(op(A::Brightness, torch_linspace_f32(0.0, 0.9, n), true));
  s.push_back(op(A::Color, torch_linspace_f32(0.0, 0.9, n), true));
  s.push_back(op(A::Contrast, torch_linspace_f32(0.0, 0.9, n), true));
  s.push_back(op(A::Sharpness, torch_linspace_f32(0.0, 0.9, n), true));
  s.push_back(op(A::Posterize, posterize_bins(8, n, 4.0), false));
  s.push_back(op(A::Solarize, torch_linspace_f32(255.0, 0.0, n), false));
  s.push_back(no_magnitude(A::AutoContrast));
  s.push_back(no_magnitude(A::Equalize));
}

}  // namespace

AugmentationSpace autoaugment_space(int64_t num_bins, int64_t height, int64_t width) {
  check_bins(num_bins, "autoaugment_space");
  check_size(height, width, "autoaugment_space");
  AugmentationSpace s;
  add_common_ops(s, num_bins, height, width);
  s.push_back(no_magnitude(AugmentOp::Invert));
  return s;
}

AugmentationSpace randaugment_space(int64_t num_bins, int64_t height, int64_t width) {
  check_bins(num_bins, "randaugment_space");
  check_size(height, width, "randaugment_space");
  AugmentationSpace s{no_magnitude(AugmentOp::Identity)};
  add_common_ops(s, num_bins, height, width);
  return s;
}

AugmentationSpace trivial_augment_wide_space(int64_t num_bins) {
  check_bins(num_bins, "trivial_augment_wide_space");
  using A = AugmentOp;
  const int64_t n = num_bins;
  return {no_magnitude(A::Identity),
          op(A::ShearX, torch_linspace_f32(0.0, 0.99, n), true),
          op(A::ShearY, torch_linspace_f32(0.0, 0.99, n), true),
          op(A::TranslateX, torch_linspace_f32(0.0, 32.0, n), true),
          op(A::TranslateY, torch_linspace_f32(0.0, 32.0, n), true),
          op(A::Rotate, torch_linspace_f32(0.0, 135.0, n), true),
          op(A::Brightness, torch_linspace_f32(0.0, 0.99, n), true),
          op(A::Color, torch_linspace_f32(0.0, 0.99, n), true),
          op(A::Contrast, torch_linspace_f32(0.0, 0.99, n), true),
          op(A::Sharpness, torch_linspace_f32(0.0, 0.99, n), true),
          op(A::Posterize, posterize_bins(8, n, 6.0), false),
          op(A::Solarize, torch_linspace_f32(255.0, 0.0, n), false),
          no_magnitude(A::AutoContrast),
          no_magnitude(A::Equalize)};
}

AugmentationSpace augmix_space(int64_t num_bins, int64_t height, int64_t width, bool all_ops) {
  check_bins(num_bins, "augmix_space");
  check_size(height, width, "augmix_space");
  using A = AugmentOp;
  const int64_t n = num_bins;
  AugmentationSpace s{op(A::ShearX, torch_linspace_f32(0.0, 0.3, n), true),
                      op(A::ShearY, torch_linspace_f32(0.0, 0.3, n), true),
                      op(A::TranslateX, torch_linspace_f32(0.0, static_cast<double>(width) / 3.0, n), true),
                      op(A::TranslateY, torch_linspace_f32(0.0, static_cast<double>(height) / 3.0, n), true),
                      op(A::Rotate, torch_linspace_f32(0.0, 30.0, n), true),
                      op(A::Posterize, posterize_bins(4, n, 4.0), false),
                      op(A::Solarize, torch_linspace_f32(255.0, 0.0, n), false),
                      no_magnitude(A::AutoContrast),
                      no_magnitude(A::Equalize)};
  if (all_ops) {
    s.push_back(op(A::Brightness, torch_linspace_f32(0.0, 0.9, n), true));
    s.push_back(op(A::Color, torch_linspace_f32(0.0, 0.9, n), true));
    s.push_back(op(A::Contrast, torch_linspace_f32(0.0, 0.9, n), true));
    s.push_back(op(A::Sharpness, torch_linspace_f32(0.0, 0.9, n), true));
  }
  return s;
}

}  // namespace ember::vision::transforms::functional
