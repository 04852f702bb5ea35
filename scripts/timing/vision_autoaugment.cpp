// Standalone timing of AutoAugment, RandAugment, TrivialAugmentWide, AugMix and
// their ops on a 224x224 RGB uint8 image (docs/vision.md, "AutoAugment,
// RandAugment, TrivialAugmentWide, AugMix"); scripts/timing/vision_autoaugment.sh
// builds and runs it beside vision_autoaugment.py (torchvision). Prints one line
// per workload: name, microseconds per call. The ops: the median of repeated
// calls. The random transforms: each call draws different ops, so the time is
// the mean over 400 draws; the 400 draws are replayed 5 times from the same
// seed and each draw counts its fastest replay (a call that the scheduler
// preempted on this shared machine would otherwise add a whole time slice).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/vision/transforms.h>

using namespace ember;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;
using F::AugmentOp;

static std::vector<double> times_us(const std::function<void()>& fn, int reps) {
  for (int i = 0; i < 5; ++i) fn();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    fn();
    const auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  return t;
}

static double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The mean over `draws` calls of each call's fastest of `replays` replays of
// the same seeded sequence.
static double replayed_mean_us(const std::function<void()>& fn, int draws, int replays) {
  for (int i = 0; i < 5; ++i) fn();
  std::vector<double> best(static_cast<size_t>(draws), 1e300);
  for (int r = 0; r < replays; ++r) {
    manual_seed(1234);
    for (int d = 0; d < draws; ++d) {
      const auto a = std::chrono::steady_clock::now();
      fn();
      const auto b = std::chrono::steady_clock::now();
      best[static_cast<size_t>(d)] = std::min(best[static_cast<size_t>(d)], std::chrono::duration<double, std::micro>(b - a).count());
    }
  }
  double s = 0;
  for (double v : best) s += v;
  return s / draws;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const char* only = argc > 2 ? argv[2] : nullptr;
  set_num_threads(threads);
  manual_seed(0);
  const Tensor img = randint(0, 256, {3, 224, 224}, kUInt8);
  struct W {
    std::string name;
    std::function<void()> fn;
    int reps;
    bool random;
  };
  T::AutoAugment aa;
  T::RandAugment ra;
  T::TrivialAugmentWide ta;
  T::AugMix mix;
  auto op = [&](AugmentOp o, double m, T::InterpolationMode mode = T::InterpolationMode::Nearest) {
    return [&img, o, m, mode] { F::apply_augment_op(img, o, m, mode); };
  };
  using IM = T::InterpolationMode;
  std::vector<W> work = {
      {"AutoAugment_imagenet", [&] { aa(img); }, 400, true},
      {"RandAugment", [&] { ra(img); }, 400, true},
      {"TrivialAugmentWide", [&] { ta(img); }, 400, true},
      {"AugMix", [&] { mix(img); }, 200, true},
      {"op_ShearX_nearest", op(AugmentOp::ShearX, 0.3), 200, false},
      {"op_ShearX_bilinear", op(AugmentOp::ShearX, 0.3, IM::Bilinear), 200, false},
      {"op_TranslateX_nearest", op(AugmentOp::TranslateX, 60.0), 200, false},
      {"op_Rotate_nearest", op(AugmentOp::Rotate, 30.0), 200, false},
      {"op_Rotate_bilinear", op(AugmentOp::Rotate, 30.0, IM::Bilinear), 200, false},
      {"op_Brightness", op(AugmentOp::Brightness, 0.5), 400, false},
      {"op_Color", op(AugmentOp::Color, 0.5), 400, false},
      {"op_Contrast", op(AugmentOp::Contrast, 0.5), 400, false},
      {"op_Sharpness", op(AugmentOp::Sharpness, 0.5), 400, false},
      {"op_Posterize", op(AugmentOp::Posterize, 4.0), 400, false},
      {"op_Solarize", op(AugmentOp::Solarize, 128.0), 400, false},
      {"op_AutoContrast", op(AugmentOp::AutoContrast, 0.0), 400, false},
      {"op_Equalize", op(AugmentOp::Equalize, 0.0), 400, false},
      {"op_Invert", op(AugmentOp::Invert, 0.0), 400, false},
  };
  for (const auto& w : work) {
    if (only && w.name.find(only) == std::string::npos) continue;
    const double us = w.random ? replayed_mean_us(w.fn, w.reps, 5) : median(times_us(w.fn, w.reps));
    std::printf("%-34s %10.1f\n", w.name.c_str(), us);
  }
}
