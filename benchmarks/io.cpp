// Suite io: Ember::io's JPEG and PNG decoding and encoding of a 1920x1080
// picture, against the raw library call in this process (libjpeg-turbo's
// libjpeg API, libpng; the target is at most 1.05x its time) and against
// torchvision.io in Python (an external peer, peers/io_torchvision.py; the
// target is at least its speed). Every side sees the same bytes and pixels:
// the picture is made at run time (io_test_image.h), encoded once as a
// quality-90 JPEG and a level-6 PNG for the decoders, and written to the
// scratch folder for the Python peer.
//
// Video and audio: Ember's VideoReader over every frame of a 10 s 720p H.264
// clip (against torchvision.io.VideoReader and PyAV, each in Python,
// peers/io_video.py), and audio::load of a 60 s stereo FLAC (against
// torchaudio.load, peers/io_torchaudio.py). These have no in-process peer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "bench.h"
#include "ember/io/audio.h"
#include "ember/io/image.h"
#include "ember/io/video.h"
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

// --- video and audio --------------------------------------------------------

// A 10 s 1280x720 30 fps H.264 clip (ffmpeg's testsrc2 pattern, libx264 preset
// fast, yuv420p, one encoder thread so the bytes do not depend on the machine),
// made once per run in the scratch folder with the ffmpeg CLI.
const std::string& video_path() {
  static const std::string path = [] {
    if (!ember::io::video_available()) throw ember_bench::SkipWorkload("Ember was built without FFmpeg");
    if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0)
      throw ember_bench::SkipWorkload("the ffmpeg CLI, which makes the input video, is not on PATH");
    const std::string p = ember_bench::scratch_dir() + "/video_720p_h264_10s.mp4";
    const std::string cmd =
        "ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=30:duration=10 "
        "-c:v libx264 -preset fast -pix_fmt yuv420p -threads 1 -map_metadata -1 -fflags +bitexact '" + p + "'";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("ffmpeg could not make " + p);
    std::printf("io inputs: 10 s 1280x720 30 fps H.264 (libx264 preset fast, yuv420p), %lld bytes\n",
                static_cast<long long>(std::filesystem::file_size(p)));
    return p;
  }();
  return path;
}

// What the video workloads compare (decoded frames are 830 MB in all, so not
// them): [frame count, sum of every frame's pts in us, last frame's pts in us,
// sum of the last frame's bytes, sum of byte * (index % 251 + 1) over the last
// [3, H, W] frame (a changed or moved byte shows)]. peers/io_video.py computes
// the same, after its timing; here it costs ~2 ms of a ~1 s run.
ember::Tensor video_summary(int64_t count, int64_t pts_sum_us, const ember::io::VideoFrame& last) {
  int64_t sum = 0, weighted = 0;
  const uint8_t* p = last.data.data_ptr<uint8_t>();
  const int64_t n = last.data.numel();
  for (int64_t i = 0; i < n; ++i) {
    sum += p[i];
    weighted += static_cast<int64_t>(p[i]) * (i % 251 + 1);
  }
  const std::vector<int64_t> v = {count, pts_sum_us, static_cast<int64_t>(std::llround(last.pts * 1e6)), sum,
                                  weighted};
  return ember_bench::to_ember(at::tensor(v, at::kLong));
}

ember::Tensor read_all_frames(const std::string& path, int64_t threads) {
  ember::io::VideoReader reader(path, "video", threads);
  int64_t count = 0, pts_sum_us = 0;
  std::optional<ember::io::VideoFrame> last;
  while (auto frame = reader.next()) {
    ++count;
    pts_sum_us += std::llround(frame->pts * 1e6);
    last = std::move(frame);
  }
  if (!last) throw std::runtime_error("no frame in " + path);
  return video_summary(count, pts_sum_us, *last);
}

// 60 s of 44.1 kHz stereo: a chirp (200 Hz -> 1.2 kHz left, 300 Hz -> 2.3 kHz
// right) plus low white noise from a fixed LCG, saved once as 16-bit FLAC
// with Ember's audio::save.
const std::string& flac_path() {
  static const std::string path = [] {
    constexpr int64_t kRate = 44100, kFrames = 60 * kRate;
    at::Tensor w = at::empty({2, kFrames}, at::kFloat);
    float* l = w.data_ptr<float>();
    float* r = l + kFrames;
    uint32_t state = 12345;
    auto noise = [&] {
      state = state * 1664525u + 1013904223u;
      return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    };
    for (int64_t i = 0; i < kFrames; ++i) {
      const double t = static_cast<double>(i) / kRate;
      l[i] = static_cast<float>(0.5 * std::sin(2 * M_PI * (200 + 1000 * t / 120) * t)) + 0.05f * noise();
      r[i] = static_cast<float>(0.4 * std::sin(2 * M_PI * (300 + 2000 * t / 120) * t)) + 0.05f * noise();
    }
    const std::string p = ember_bench::scratch_dir() + "/audio_44k1_stereo_60s.flac";
    ember::audio::save(p, ember_bench::to_ember(w), kRate, true, "flac", "", 16);
    std::printf("io inputs: 60 s 44.1 kHz stereo 16-bit FLAC, %lld bytes\n",
                static_cast<long long>(std::filesystem::file_size(p)));
    return p;
  }();
  return path;
}

bool has_audio_backend(const std::string& name) {
  const auto b = ember::audio::list_audio_backends();
  return std::find(b.begin(), b.end(), name) != b.end();
}

// External peers only (no in-process peer: Case::peer stays empty); results
// are compared exactly.
Case external_only(std::function<ember::Tensor()> ember_run, std::vector<ember_bench::ExternalPeer> peers) {
  Case c{std::move(ember_run), {}};
  c.peer_name = "";
  c.rtol = 0;
  c.atol = 0;
  c.external_peers = std::move(peers);
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
    {"io", "videoreader_720p_h264_10s", [] {
       const std::string path = video_path();
       // The decoder threads: the run's thread count, on every side.
       const int64_t threads = ember::get_num_threads();
       auto peer = [&](const std::string& name) {
         return ember_bench::ExternalPeer{
             name, {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/io_video.py", name, "--input", path}};
       };
       return external_only([=] { return read_all_frames(path, threads); },
                            {peer("torchvision"), peer("pyav")});
     }},
    {"io", "audio_load_flac_60s", [] {
       const std::string path = flac_path();
       return external_only([=] { return ember::audio::load(path).waveform; },
                            {{"torchaudio", {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/io_torchaudio.py",
                                             "--input", path}}});
     }},
    {"io", "audio_load_flac_60s_ffmpeg", [] {
       if (!has_audio_backend("ffmpeg")) throw ember_bench::SkipWorkload("Ember was built without FFmpeg");
       const std::string path = flac_path();
       return external_only([=] { return ember::audio::ffmpeg::load(path).waveform; },
                            {{"torchaudio", {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/io_torchaudio.py",
                                             "--input", path}}});
     }},
});

}  // namespace
