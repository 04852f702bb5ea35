// Suite io: Ember::io's JPEG and PNG decoding and encoding of a 1920x1080
// picture, against the raw library call in this process (libjpeg-turbo's
// libjpeg API, libpng; the target is at most 1.05x its time) and against
// torchvision.io in Python (an external peer, peers/io_torchvision.py; the
// target is at least its speed). Every side sees the same bytes and pixels:
// the picture is made at run time (io_test_image.h), encoded once as a
// quality-90 JPEG and a level-6 PNG for the decoders, and written to the
// scratch folder for the Python peer.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "bench.h"
#include "ember/io/image.h"
#include "io_raw.h"
#include "io_test_image.h"

namespace {

using ember_bench::Case;

constexpr int64_t kHeight = 1080, kWidth = 1920;
constexpr int kDecodeInputQuality = 90;  // a typical photo's JPEG quality
constexpr int kJpegQuality = 75;         // torchvision.io.encode_jpeg's default
constexpr int kPngLevel = 6;             // torchvision.io.encode_png's default

struct Inputs {
  at::Tensor chw;   // [3, H, W]: what Ember and torchvision encode (their layout)
  at::Tensor hwc;   // [H, W, 3]: what libjpeg / libpng encode (theirs)
  at::Tensor jpeg;  // encoded once by the raw library, for the decoders
  at::Tensor png;
  ember::Tensor e_chw, e_jpeg, e_png;
  std::string chw_path, jpeg_path, png_path;  // the same, for the Python peer
};

void write_bytes(const std::string& path, const at::Tensor& t) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.numel()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

// Made on first use and kept for the run (about 20 MB).
const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs i;
    i.chw = ember_bench::make_test_image(kHeight, kWidth);
    i.hwc = i.chw.permute({1, 2, 0}).contiguous();
    i.jpeg = ember_bench::raw::encode_jpeg(i.hwc, kDecodeInputQuality);
    i.png = ember_bench::raw::encode_png(i.hwc, kPngLevel);
    i.e_chw = ember_bench::to_ember(i.chw);
    i.e_jpeg = ember_bench::to_ember(i.jpeg);
    i.e_png = ember_bench::to_ember(i.png);
    const std::string dir = ember_bench::scratch_dir();
    i.chw_path = dir + "/image_3x1080x1920.u8";
    i.jpeg_path = dir + "/image.jpg";
    i.png_path = dir + "/image.png";
    write_bytes(i.chw_path, i.chw);
    write_bytes(i.jpeg_path, i.jpeg);
    write_bytes(i.png_path, i.png);
    // The encoded sizes tell a reader whether the picture compresses like a photo.
    std::printf("io inputs: %lldx%lld RGB picture, JPEG (quality %d) %lld bytes, PNG (level %d) %lld bytes\n",
                static_cast<long long>(kWidth), static_cast<long long>(kHeight), kDecodeInputQuality,
                static_cast<long long>(i.jpeg.numel()), kPngLevel, static_cast<long long>(i.png.numel()));
    return i;
  }();
  return in;
}

// torchvision.io through Debian's python3-torchvision; EMBER_BENCH_PYTHON
// overrides the interpreter.
ember_bench::ExternalPeer torchvision(std::vector<std::string> args) {
  const char* python = std::getenv("EMBER_BENCH_PYTHON");
  std::vector<std::string> command = {python && *python ? python : "/usr/bin/python3",
                                      ember_bench::source_dir() + "/peers/io_torchvision.py"};
  command.insert(command.end(), args.begin(), args.end());
  return {"torchvision", command};
}

std::string shape_arg() {
  return "3," + std::to_string(kHeight) + "," + std::to_string(kWidth);
}

// The workload's peers: `peer_name` runs in this process (Case::peer), the
// other in Python. Decoded pixels and encoded bytes are uint8, so the checks
// are exact: every side runs the same libraries with the same settings.
Case with_peers(Case c, std::string peer_name, ember_bench::ExternalPeer external) {
  c.peer_name = std::move(peer_name);
  c.external_peers = {std::move(external)};
  return c;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({
    {"io", "decode_jpeg_1080p", [] {
       const Inputs& in = inputs();
       const at::Tensor jpeg = in.jpeg;
       const ember::Tensor e_jpeg = in.e_jpeg;
       // The raw call's [H, W, 3] seen as [3, H, W] (no copy, as torchvision does).
       return with_peers({[=] { return ember::io::decode_jpeg(e_jpeg); },
                     [=] { return ember_bench::raw::decode_jpeg(jpeg.data_ptr<uint8_t>(), jpeg.numel()).permute({2, 0, 1}); }},
                    "libjpeg-turbo", torchvision({"decode_jpeg", "--input", in.jpeg_path}));
     }},
    {"io", "encode_jpeg_1080p_q75", [] {
       const Inputs& in = inputs();
       const at::Tensor hwc = in.hwc;
       const ember::Tensor chw = in.e_chw;
       return with_peers({[=] { return ember::io::encode_jpeg(chw, kJpegQuality); },
                     [=] { return ember_bench::raw::encode_jpeg(hwc, kJpegQuality); }},
                    "libjpeg-turbo",
                    torchvision({"encode_jpeg", "--input", in.chw_path, "--shape", shape_arg(), "--quality",
                                 std::to_string(kJpegQuality)}));
     }},
    {"io", "decode_png_1080p", [] {
       const Inputs& in = inputs();
       const at::Tensor png = in.png;
       const ember::Tensor e_png = in.e_png;
       return with_peers({[=] { return ember::io::decode_png(e_png); },
                     [=] { return ember_bench::raw::decode_png(png.data_ptr<uint8_t>(), png.numel()).permute({2, 0, 1}); }},
                    "libpng", torchvision({"decode_png", "--input", in.png_path}));
     }},
    {"io", "encode_png_1080p_l6", [] {
       const Inputs& in = inputs();
       const at::Tensor hwc = in.hwc;
       const ember::Tensor chw = in.e_chw;
       return with_peers({[=] { return ember::io::encode_png(chw, kPngLevel); },
                     [=] { return ember_bench::raw::encode_png(hwc, kPngLevel); }},
                    "libpng",
                    torchvision({"encode_png", "--input", in.chw_path, "--shape", shape_arg(), "--level",
                                 std::to_string(kPngLevel)}));
     }},
});

}  // namespace
