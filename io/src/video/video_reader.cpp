// VideoReader: torchvision.io.VideoReader (its video_reader C++ backend) over
// FFmpeg. One stream decodes at a time; seek is frame-accurate unless asked not to.
#include <algorithm>
#include <cmath>
#include <limits>

#include <ember/core/error.h>
#include <ember/core/out_of_memory.h>
#include <ember/io/video.h>

#include "frame_convert.h"
#include "media_input.h"
#include "stream_damage.h"
#include "stream_decoder.h"
#include "stream_spec.h"
#include "video_metadata.h"

namespace ember::io {

bool video_available() { return true; }

struct VideoReader::Impl {
  explicit Impl(detail::MediaInput in)
      : input(std::make_unique<detail::MediaInput>(std::move(in))), meta(detail::read_metadata(*input)) {}

  // Opens the decoder of `spec`, positioned at the start of the file.
  void open_stream(const detail::StreamSpec& s) {
    const int index = input->find_stream(s.media, s.index);
    if (s.index >= 0) {
      EMBER_CHECK(index >= 0, "VideoReader: ", input->name(), " has no ", s.type, " stream ", s.index);
    }
    EMBER_CHECK(index >= 0, "VideoReader: ", input->name(), " has no ", s.type, " stream");
    spec = s;
    stream_index = index;
    // A stream switch restarts at the beginning, as torchvision's re-init does
    // (it would restart at its seekTS, which its seek() never sets).
    position(0.0, false);
  }

  // Restarts decoding at `seconds` as torchvision does: the file reopened (so
  // demuxer and decoder state is exactly that of a fresh open: the AAC priming
  // samples, for one, are only skipped on a first read), then a seek.
  void position(double seconds, bool keyframes_only) {
    // torchvision's rounding: whole microseconds, toward zero.
    const auto target_us = static_cast<int64_t>(seconds * 1e6);
    const bool fresh = decoder == nullptr;
    decoder.reset();
    if (!fresh) input = std::make_unique<detail::MediaInput>(input->reopen());
    decoder = std::make_unique<detail::StreamDecoder>(*input, stream_index, num_threads,
                                                      /*torchvision_timing=*/true);
    if (target_us > 0) decoder->seek_us(target_us);
    drop_before_us = keyframes_only ? std::numeric_limits<int64_t>::min() : target_us;
  }

  std::optional<VideoFrame> next() {
    while (AVFrame* f = decoder->next_frame()) {
      const int64_t pts_us = decoder->frame_pts_us(f);
      if (pts_us < drop_before_us) continue;  // decoded only to reach the seek target
      VideoFrame out;
      out.pts = static_cast<double>(pts_us) * 1e-6;  // as torchvision: us * 1e-6
      if (spec.media == AVMEDIA_TYPE_VIDEO) {
        out.data = convert.video_chw(f);
      } else {
        out.data = convert.audio_interleaved(f);
      }
      return out;
    }
    if (auto damage = decoder->take_damage()) {
      detail::report_damage("VideoReader", *input, spec.type.c_str(), *damage, strict,
                            "the stream ends there");
    }
    return std::nullopt;
  }

  std::unique_ptr<detail::MediaInput> input;
  VideoMetadata meta;
  int stream_index = -1;
  int64_t num_threads = 0;
  bool strict = false;  // damaged data raises instead of ending the stream with a warning
  detail::StreamSpec spec;
  std::unique_ptr<detail::StreamDecoder> decoder;
  // SWS_AREA: torchvision's VideoReader (video_sampler.cpp).
  detail::FrameConverter convert{SWS_AREA};
  int64_t drop_before_us = std::numeric_limits<int64_t>::min();
};

namespace {

std::unique_ptr<VideoReader::Impl> make_impl(detail::MediaInput in, const std::string& stream,
                                             int64_t num_threads, bool strict) {
  EMBER_CHECK(num_threads >= 0 && num_threads <= 256, "VideoReader: num_threads must be in [0, 256], got ",
              num_threads);
  const detail::StreamSpec spec = detail::parse_stream_spec(stream);
  auto impl = std::make_unique<VideoReader::Impl>(std::move(in));
  impl->num_threads = num_threads;
  impl->strict = strict;
  impl->open_stream(spec);
  return impl;
}

}  // namespace

// Running out of memory is an ember::Error naming the file (Note [Out of
// memory at the entry points]).
VideoReader::VideoReader(const std::string& path, const std::string& stream, int64_t num_threads,
                         bool strict)
    : impl_(with_out_of_memory_context("VideoReader: '" + path + "'", "opening the file", [&] {
        return make_impl(detail::MediaInput::open_file(path), stream, num_threads, strict);
      })) {}

VideoReader::VideoReader(const Tensor& data, const std::string& stream, int64_t num_threads, bool strict)
    : impl_(with_out_of_memory_context("VideoReader", "opening the encoded video", [&] {
        return make_impl(detail::MediaInput::open_memory(data), stream, num_threads, strict);
      })) {}

VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;

const VideoMetadata& VideoReader::metadata() const { return impl_->meta; }

std::string VideoReader::current_stream() const {
  std::string name = impl_->spec.type;
  name.append(":").append(std::to_string(std::max<int64_t>(impl_->spec.index, 0)));
  return name;
}

void VideoReader::set_current_stream(const std::string& stream) {
  impl_->open_stream(detail::parse_stream_spec(stream));
}

VideoReader& VideoReader::seek(double seconds, bool keyframes_only) {
  EMBER_CHECK(std::isfinite(seconds), "VideoReader::seek: expected a finite time, got ", seconds);
  impl_->position(seconds, keyframes_only);
  return *this;
}

std::optional<VideoFrame> VideoReader::next() {
  return with_out_of_memory_context([&] { return "VideoReader: " + impl_->input->name(); },
                                    "decoding a frame", [&] { return impl_->next(); });
}

VideoReader::iterator::iterator(VideoReader* reader) : reader_(reader), frame_(reader->next()) {}

VideoReader::iterator& VideoReader::iterator::operator++() {
  frame_ = reader_->next();
  return *this;
}

}  // namespace ember::io
