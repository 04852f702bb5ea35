// read_video and read_video_timestamps with the semantics of torchvision.io's
// default (PyAV) backend, torchvision/io/video.py in 0.14: the same seek margins,
// the same frame selection (including the frame before start_pts), the same audio
// trimming. Differences are in docs/io.md ("Video"): a truncated or damaged
// file returns what decoded with a warning, or raises with strict (torchvision
// returns it silently), and audio is always float32.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <string_view>

#include <ember/core/checked_size.h>
#include <ember/core/error.h>
#include <ember/core/out_of_memory.h>
#include <ember/io/video.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

#include "frame_convert.h"
#include "media_input.h"
#include "stream_damage.h"
#include "stream_decoder.h"

namespace ember::io {
namespace {

using detail::FramePtr;

// torchvision buffers up to 5 frames past end_pts (and seeks 5 ticks earlier),
// for DivX-style packed B-frames whose timestamps arrive out of order.
constexpr int kMaxBuffer = 5;

// PyAV's frame.pts (the decoder's reordered packet pts), with the best-effort
// timestamp for frames that have none.
int64_t pyav_pts(detail::StreamDecoder& dec, const AVFrame* f) {
  return f->pts != AV_NOPTS_VALUE ? f->pts : dec.frame_pts(f);
}

// torchvision's should_buffer: false only for DivX streams whose extradata says
// packed B-frames are off ("DivX503b1393" + something other than 'p').
bool should_buffer(const AVStream* s) {
  const AVCodecParameters* par = s->codecpar;
  if (par->codec_type != AVMEDIA_TYPE_VIDEO || par->extradata == nullptr) return true;
  const std::string extra(reinterpret_cast<const char*>(par->extradata),
                          static_cast<size_t>(par->extradata_size));
  const size_t pos = extra.find("DivX");
  if (pos == std::string::npos) return true;
  const std::string tail = extra.substr(pos);
  std::smatch m;
  static const std::regex build("DivX(\\d+)Build(\\d+)(\\w)");
  static const std::regex beta("DivX(\\d+)b(\\d+)(\\w)");
  if (std::regex_search(tail, m, build) || std::regex_search(tail, m, beta)) return m[3].str() == "p";
  return true;
}

struct Offsets {
  double start;
  double end;  // +inf: to the end
};

// start/end in the stream's ticks, as torchvision converts seconds: floor / ceil of
// seconds * (1 / time_base) in double arithmetic.
Offsets to_ticks(double start, double end, PtsUnit unit, AVRational tb) {
  if (unit == PtsUnit::PTS) return {start, end};
  const double per_second = static_cast<double>(tb.den) / static_cast<double>(tb.num);
  return {std::floor(start * per_second), std::isinf(end) ? end : std::ceil(end * per_second)};
}

// The frames torchvision's _read_from_stream keeps: pts in [start, end] in pts
// order, plus the last frame before start when no frame starts exactly there.
std::vector<std::pair<int64_t, FramePtr>> read_from_stream(detail::MediaInput& input, int stream_index,
                                                           double start_pts, double end_pts, PtsUnit unit,
                                                           bool strict) {
  detail::StreamDecoder dec(input, stream_index, 0);
  const Offsets off = to_ticks(start_pts, end_pts, unit, dec.stream()->time_base);
  const bool buffer = should_buffer(dec.stream());
  double seek_offset = std::max(off.start - 1, 0.0);
  if (buffer) seek_offset = std::max(seek_offset - kMaxBuffer, 0.0);
  dec.seek_ticks(static_cast<int64_t>(seek_offset));

  std::map<int64_t, FramePtr> kept;       // pts in [start, end]
  FramePtr before;                        // the latest frame with pts < start
  int64_t before_pts = std::numeric_limits<int64_t>::min();
  bool any = false, exact_start = false, reached_end = false;
  int buffered = 0;
  while (AVFrame* f = dec.next_frame()) {
    const int64_t pts = pyav_pts(dec, f);
    any = true;
    const auto p = static_cast<double>(pts);
    if (p == off.start) exact_start = true;
    if (p >= off.start && p <= off.end) {
      kept[pts] = FramePtr(av_frame_clone(f));
    } else if (p < off.start && pts >= before_pts) {
      before = FramePtr(av_frame_clone(f));
      before_pts = pts;
    }
    if (p >= off.end) {
      reached_end = true;
      if (buffer && buffered < kMaxBuffer) {
        ++buffered;
        continue;
      }
      break;
    }
  }
  std::vector<std::pair<int64_t, FramePtr>> out;
  if (any && off.start > 0 && !exact_start && before) out.emplace_back(before_pts, std::move(before));
  for (auto& [pts, frame] : kept) {
    if (!frame) throw std::bad_alloc();  // (a clone that failed: Note [FFmpeg out of memory])
    out.emplace_back(pts, std::move(frame));
  }
  // A stream that ends at damage before end_pts: what was asked for is
  // incomplete (Note [Truncated and damaged media]).
  auto damage = dec.take_damage();
  if (damage && !reached_end) {
    const char* type = av_get_media_type_string(dec.stream()->codecpar->codec_type);
    detail::report_damage("read_video", input, type, *damage, strict,
                          "returning the " + std::to_string(out.size()) + " " + type +
                              " frames in range that decoded");
  }
  return out;
}

// Python's a[s:e] bounds for a length n (negative e counts from the end).
std::pair<int64_t, int64_t> python_slice(int64_t s, int64_t e, int64_t n) {
  auto clamp = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  const int64_t a = clamp(s), b = clamp(e);
  return {a, std::max(a, b)};
}

Tensor read_audio(detail::MediaInput& input, int index, double start_pts, double end_pts, PtsUnit unit,
                  bool strict) {
  auto frames = read_from_stream(input, index, start_pts, end_pts, unit, strict);
  if (frames.empty()) return empty({1, 0}, kFloat32);
  detail::FrameConverter convert(SWS_BILINEAR);
  std::vector<Tensor> parts;
  for (auto& [pts, f] : frames) parts.push_back(convert.audio_planar(f.get()));
  Tensor audio = cat(parts, 1);
  // torchvision's _align_audio_frames, with the offsets in the audio time base.
  const Offsets ref = to_ticks(start_pts, end_pts, unit, input.format()->streams[index]->time_base);
  const auto first = static_cast<double>(frames.front().first);
  const auto last = static_cast<double>(frames.back().first);
  const int64_t total = audio.size(1);
  const double step = (last - first + 1) / static_cast<double>(total);
  int64_t s = 0, e = total;
  if (first < ref.start) s = static_cast<int64_t>((ref.start - first) / step);
  if (last > ref.end) e = static_cast<int64_t>((ref.end - last) / step);
  const auto [a, b] = python_slice(s, e, total);
  return audio.slice(1, a, b).contiguous();
}

Tensor read_frames(detail::MediaInput& input, int index, double start_pts, double end_pts, PtsUnit unit,
                   bool strict) {
  auto frames = read_from_stream(input, index, start_pts, end_pts, unit, strict);
  if (frames.empty()) return empty({0, 1, 1, 3}, kUInt8);
  const int h = frames.front().second->height, w = frames.front().second->width;
  // frames x h x w x 3 bytes, checked (Note [Checked sizes]) so that the error names the file.
  const int64_t n = static_cast<int64_t>(frames.size());
  checked_nbytes({n, h, w, 3}, 1, "read_video: " + input.name());
  Tensor out = empty({n, h, w, 3}, kUInt8);
  // SWS_BILINEAR: PyAV's default interpolation for frame.to_rgb().
  detail::FrameConverter convert(SWS_BILINEAR);
  uint8_t* dst = out.data_ptr<uint8_t>();
  for (auto& [pts, f] : frames) {
    EMBER_CHECK(f->height == h && f->width == w, "read_video: the frame size of ", input.name(),
                " changes from ", w, "x", h, " to ", f->width, "x", f->height,
                " (frames cannot be stacked)");
    convert.video_to_rgb(f.get(), dst);
    dst += int64_t{h} * w * 3;
  }
  return out;
}

}  // namespace

// Note [Out of memory at the entry points]: read_video below runs this.
static VideoClip read_video_impl(const std::string& path, double start_pts, std::optional<double> end_pts,
                                 PtsUnit pts_unit, bool strict) {
  const double end = end_pts.value_or(std::numeric_limits<double>::infinity());
  EMBER_CHECK(!std::isnan(start_pts) && !std::isnan(end), "read_video: start_pts and end_pts must be numbers");
  EMBER_CHECK(end >= start_pts, "read_video: end_pts should be larger than start_pts, got start_pts=",
              start_pts, " and end_pts=", end);
  detail::MediaInput input = detail::MediaInput::open_file(path, /*generate_pts=*/true);
  VideoClip clip;
  const int video = input.find_stream(AVMEDIA_TYPE_VIDEO, 0);
  const int audio = input.find_stream(AVMEDIA_TYPE_AUDIO, 0);
  if (video >= 0) {
    clip.video = read_frames(input, video, start_pts, end, pts_unit, strict);
    const AVRational rate = input.format()->streams[video]->avg_frame_rate;
    if (rate.num > 0 && rate.den > 0) clip.info.video_fps = av_q2d(rate);
  } else {
    clip.video = empty({0, 1, 1, 3}, kUInt8);
  }
  if (audio >= 0) {
    clip.audio = read_audio(input, audio, start_pts, end, pts_unit, strict);
    clip.info.audio_fps = input.format()->streams[audio]->codecpar->sample_rate;
  } else {
    clip.audio = empty({1, 0}, kFloat32);
  }
  return clip;
}

VideoClip read_video(const std::string& path, double start_pts, std::optional<double> end_pts,
                     PtsUnit pts_unit, bool strict) {
  return with_out_of_memory_context("read_video: '" + path + "'", "decoding the video",
                                    [&] { return read_video_impl(path, start_pts, end_pts, pts_unit, strict); });
}

// Note [Out of memory at the entry points]: read_video_timestamps below runs this.
static VideoTimestamps read_video_timestamps_impl(const std::string& path, PtsUnit pts_unit, bool strict) {
  detail::MediaInput input = detail::MediaInput::open_file(path, /*generate_pts=*/true);
  VideoTimestamps out;
  const int index = input.find_stream(AVMEDIA_TYPE_VIDEO, 0);
  if (index < 0) return out;
  AVFormatContext* fmt = input.format();
  AVStream* stream = fmt->streams[index];
  std::vector<int64_t> pts;
  // torchvision trusts packet timestamps when the file's first stream was written
  // by libavcodec ("Lavc" in its extradata); otherwise it decodes.
  const AVCodecParameters* first = fmt->streams[0]->codecpar;
  const bool from_packets =
      first->extradata != nullptr &&
      std::string_view(reinterpret_cast<const char*>(first->extradata),
                       static_cast<size_t>(first->extradata_size))
              .find("Lavc") != std::string_view::npos;
  if (from_packets) {
    for (unsigned i = 0; i < fmt->nb_streams; ++i) {
      fmt->streams[i]->discard = static_cast<int>(i) == index ? AVDISCARD_DEFAULT : AVDISCARD_ALL;
    }
    // The packet loop ends at damage as StreamDecoder does (Note [Truncated and
    // damaged media]): a flagged packet, a read error, a truncated file's end.
    detail::PacketPtr packet = detail::make_packet();
    std::optional<std::string> damage;
    while (true) {
      const int r = av_read_frame(fmt, packet.get());
      if (r == AVERROR_EOF) {
        if (auto cut = input.truncation()) damage = "the data ends early: " + *cut;
        break;
      }
      if (r < 0) {
        detail::throw_if_out_of_memory(r);
        damage = "reading failed: " + detail::av_error_text(r);
        break;
      }
      if (packet->stream_index == index && (packet->flags & AV_PKT_FLAG_CORRUPT)) {
        damage = "a packet" + detail::at_byte(packet->pos) + " is cut short or corrupt";
        av_packet_unref(packet.get());
        break;
      }
      if (packet->stream_index == index && packet->pts != AV_NOPTS_VALUE) pts.push_back(packet->pts);
      av_packet_unref(packet.get());
    }
    if (damage) {
      std::optional<double> last;
      if (!pts.empty()) last = static_cast<double>(*std::max_element(pts.begin(), pts.end())) * av_q2d(stream->time_base);
      detail::report_damage("read_video_timestamps", input, "video", {*damage, last}, strict,
                            "returning the " + std::to_string(pts.size()) + " timestamps before it");
    }
  } else {
    detail::StreamDecoder dec(input, index, 0);
    while (AVFrame* f = dec.next_frame()) {
      if (f->pts != AV_NOPTS_VALUE) pts.push_back(f->pts);
    }
    if (auto damage = dec.take_damage()) {
      detail::report_damage("read_video_timestamps", input, "video", *damage, strict,
                            "returning the " + std::to_string(pts.size()) + " timestamps before it");
    }
  }
  std::sort(pts.begin(), pts.end());
  const AVRational tb = stream->time_base;
  for (int64_t p : pts) {
    // Seconds as Python's float(Fraction(p) * time_base): one correctly rounded division.
    out.pts.push_back(pts_unit == PtsUnit::PTS
                          ? static_cast<double>(p)
                          : static_cast<double>(p * tb.num) / static_cast<double>(tb.den));
  }
  const AVRational rate = stream->avg_frame_rate;
  if (rate.num > 0 && rate.den > 0) out.video_fps = av_q2d(rate);
  return out;
}

VideoTimestamps read_video_timestamps(const std::string& path, PtsUnit pts_unit, bool strict) {
  return with_out_of_memory_context("read_video_timestamps: '" + path + "'", "reading the timestamps",
                                    [&] { return read_video_timestamps_impl(path, pts_unit, strict); });
}

}  // namespace ember::io
