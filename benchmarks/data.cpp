// Suite data: the data pipeline's image transforms. Resizing a 1920x1080 RGB
// uint8 picture to 224x224, bilinear, without and with antialiasing, with
// Ember::vision's functional::resize, against:
//   - libtorch in this process, doing what torchvision 0.14's tensor resize
//     does (to float32, upsample_bilinear2d / _upsample_bilinear2d_aa, round,
//     back to uint8);
//   - torchvision.transforms.functional.resize on the uint8 tensor, in Python;
//   - OpenCV's cv2.resize(INTER_LINEAR) for the row without antialiasing, and
//     Pillow's Image.resize(BILINEAR), which always antialiases, for the other
//     (peers/data_resize.py; OpenCV and Pillow take H x W x 3 arrays, their
//     layout).
// Two input layouts: a contiguous [3, H, W] tensor, and the [3, H, W] view of
// interleaved H x W x 3 rows that io::decode_jpeg (and torchvision's) returns
// (`_hwc` workloads). Every side resamples the same picture (io_test_image.h).
//
// Results are uint8 and may differ by a unit: Ember computes in fixed point,
// torchvision in float32, OpenCV and Pillow in their own fixed point (each
// within one unit of torchvision). The check allows 2.
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "bench.h"
#include "ember/vision/transforms/functional.h"
#include "io_test_image.h"

namespace {

using ember_bench::Case;
namespace F = ember::vision::transforms::functional;
using ember::vision::transforms::InterpolationMode;

constexpr int64_t kHeight = 1080, kWidth = 1920, kOut = 224;

struct Inputs {
  at::Tensor chw;            // [3, H, W] contiguous
  at::Tensor hwc;            // [H, W, 3]
  ember::Tensor e_chw;       // contiguous
  ember::Tensor e_hwc_view;  // [3, H, W] view of H x W x 3 rows
  std::string hwc_path;      // the H x W x 3 bytes, for the Python peers
};

const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs i;
    i.chw = ember_bench::make_test_image(kHeight, kWidth);
    i.hwc = i.chw.permute({1, 2, 0}).contiguous();
    i.e_chw = ember_bench::to_ember(i.chw);
    i.e_hwc_view = ember_bench::to_ember(i.hwc).permute({2, 0, 1});
    i.hwc_path = ember_bench::scratch_dir() + "/image_1080x1920x3.u8";
    std::ofstream f(i.hwc_path, std::ios::binary);
    f.write(static_cast<const char*>(i.hwc.data_ptr()), static_cast<std::streamsize>(i.hwc.numel()));
    if (!f) throw std::runtime_error("cannot write " + i.hwc_path);
    return i;
  }();
  return in;
}

ember_bench::ExternalPeer python_peer(const std::string& name, bool antialias, bool hwc) {
  const char* python = std::getenv("EMBER_BENCH_PYTHON");
  std::vector<std::string> command = {python && *python ? python : "/usr/bin/python3",
                                      ember_bench::source_dir() + "/peers/data_resize.py",
                                      name,
                                      "--input",
                                      inputs().hwc_path,
                                      "--shape",
                                      std::to_string(kHeight) + "," + std::to_string(kWidth) + ",3",
                                      "--size",
                                      std::to_string(kOut) + "," + std::to_string(kOut),
                                      "--layout",
                                      hwc ? "hwc" : "chw"};
  if (antialias) command.push_back("--antialias");
  return {name, command};
}

// torchvision 0.14's functional_tensor.resize, in libtorch.
at::Tensor torchvision_resize(const at::Tensor& img, bool antialias) {
  const at::Tensor x = img.unsqueeze(0).to(at::kFloat);
  const at::Tensor y = antialias ? at::_upsample_bilinear2d_aa(x, {kOut, kOut}, false)
                                 : at::upsample_bilinear2d(x, {kOut, kOut}, false);
  return y.squeeze(0).round().to(at::kByte);
}

Case resize_case(bool antialias, bool hwc) {
  const Inputs& in = inputs();
  const ember::Tensor e = hwc ? in.e_hwc_view : in.e_chw;
  const at::Tensor t = hwc ? in.hwc.permute({2, 0, 1}) : in.chw;
  Case c{[=] { return F::resize(e, {kOut, kOut}, InterpolationMode::Bilinear, std::nullopt, antialias); },
         [=] { return torchvision_resize(t, antialias); }};
  c.rtol = 0;
  c.atol = 2;  // uint8 units (see the top of this file)
  c.external_peers = {python_peer("torchvision", antialias, hwc),
                      python_peer(antialias ? "pillow" : "opencv", antialias, hwc)};
  return c;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({
    {"data", "resize_1080p_224_bilinear", [] { return resize_case(false, false); }},
    {"data", "resize_1080p_224_bilinear_aa", [] { return resize_case(true, false); }},
    {"data", "resize_1080p_224_bilinear_hwc", [] { return resize_case(false, true); }},
    {"data", "resize_1080p_224_bilinear_aa_hwc", [] { return resize_case(true, true); }},
});

}  // namespace
