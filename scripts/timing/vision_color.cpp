// Standalone timing of the color functionals (docs/vision.md, "Color
// transforms"); scripts/timing/vision_color.sh builds and runs it beside
// vision_color.py (the same workloads with torchvision). Prints one line per
// workload: name, median microseconds per call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/vision/transforms.h>

using namespace ember;
namespace F = ember::vision::transforms::functional;

static double median_us(const std::function<void()>& fn, int reps) {
  for (int i = 0; i < 3; ++i) fn();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    fn();
    const auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  set_num_threads(threads);
  manual_seed(0);
  const Tensor img = randint(0, 256, {3, 224, 224}, kUInt8);
  const Tensor hwc = img.permute({1, 2, 0}).contiguous().permute({2, 0, 1});  // a decoded JPEG's view
  const Tensor batch = randint(0, 256, {32, 3, 224, 224}, kUInt8);
  const Tensor fimg = F::convert_image_dtype(img);
  const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
  namespace T = ember::vision::transforms;
  T::Compose preprocess({T::ConvertImageDtype(kFloat32), T::Normalize(mean, std)});
  struct W {
    std::string name;
    std::function<void()> fn;
    int reps;
  };
  std::vector<W> work = {
      {"to_float+normalize", [&] { F::normalize(F::convert_image_dtype(img), mean, std); }, 400},
      {"to_float+normalize_fused", [&] { F::convert_image_dtype_normalize(img, mean, std); }, 400},
      {"to_float+normalize_hwc", [&] { F::normalize(F::convert_image_dtype(hwc), mean, std); }, 400},
      {"to_float+normalize_fused_hwc", [&] { F::convert_image_dtype_normalize(hwc, mean, std); }, 400},
      {"to_float+normalize_batch32", [&] { F::normalize(F::convert_image_dtype(batch), mean, std); }, 30},
      {"to_float+normalize_fused_batch32", [&] { F::convert_image_dtype_normalize(batch, mean, std); }, 30},
      {"to_float+normalize_compose", [&] { preprocess(img); }, 400},
      {"convert_image_dtype", [&] { F::convert_image_dtype(img); }, 400},
      {"normalize_f32", [&] { F::normalize(fimg, mean, std); }, 400},
      {"rgb_to_grayscale", [&] { F::rgb_to_grayscale(img); }, 400},
      {"adjust_brightness", [&] { F::adjust_brightness(img, 1.3); }, 400},
      {"adjust_contrast", [&] { F::adjust_contrast(img, 0.7); }, 400},
      {"adjust_saturation", [&] { F::adjust_saturation(img, 1.4); }, 400},
      {"adjust_hue", [&] { F::adjust_hue(img, 0.1); }, 100},
      {"adjust_hue_f32", [&] { F::adjust_hue(fimg, 0.1); }, 100},
      {"adjust_gamma", [&] { F::adjust_gamma(img, 0.8); }, 400},
      {"adjust_sharpness", [&] { F::adjust_sharpness(img, 2.0); }, 400},
      {"invert", [&] { F::invert(img); }, 400},
      {"posterize", [&] { F::posterize(img, 4); }, 400},
      {"solarize", [&] { F::solarize(img, 128.0); }, 400},
      {"autocontrast", [&] { F::autocontrast(img); }, 400},
      {"equalize", [&] { F::equalize(img); }, 400},
      {"gaussian_blur_k3", [&] { F::gaussian_blur(img, {3}, {1.0}); }, 200},
      {"gaussian_blur_k23", [&] { F::gaussian_blur(img, {23}, {2.0}); }, 100},
      {"gaussian_blur_k23_f32", [&] { F::gaussian_blur(fimg, {23}, {2.0}); }, 100},
  };
  const char* only = argc > 2 ? argv[2] : nullptr;
  for (const auto& w : work) {
    if (only && w.name.find(only) == std::string::npos) continue;
    std::printf("%-34s %10.1f\n", w.name.c_str(), median_us(w.fn, w.reps));
  }
}
