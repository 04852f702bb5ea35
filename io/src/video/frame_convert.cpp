#include "frame_convert.h"

#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include <array>
#include <cstring>
#include <vector>

#if defined(__SSSE3__)
#include <immintrin.h>
#endif

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace ember::io::detail {

namespace {

#if defined(__SSSE3__)
// pshufb mask that picks, from 16-byte block `block` of 16 RGB pixels (48
// bytes), the bytes of channel `channel` (pixel j's byte 3j + channel); 0x80:
// from another block.
constexpr std::array<int8_t, 16> plane_mask(int block, int channel) {
  std::array<int8_t, 16> m{};
  for (int j = 0; j < 16; ++j) {
    const int i = 3 * j + channel;
    m[size_t(j)] = i / 16 == block ? static_cast<int8_t>(i % 16) : static_cast<int8_t>(0x80);
  }
  return m;
}
#endif

// One row of w RGB24 pixels into three planes (16 pixels per step with SSSE3).
void deinterleave_rgb_row(const uint8_t* src, int64_t w, uint8_t* r, uint8_t* g, uint8_t* b) {
  int64_t x = 0;
#if defined(__SSSE3__)
  static constexpr std::array<std::array<int8_t, 16>, 9> kMasks = {
      plane_mask(0, 0), plane_mask(1, 0), plane_mask(2, 0), plane_mask(0, 1), plane_mask(1, 1),
      plane_mask(2, 1), plane_mask(0, 2), plane_mask(1, 2), plane_mask(2, 2)};
  __m128i masks[9];
  for (int i = 0; i < 9; ++i) masks[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kMasks[size_t(i)].data()));
  uint8_t* planes[3] = {r, g, b};
  for (; x + 16 <= w; x += 16) {
    const __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * x));
    const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * x + 16));
    const __m128i b2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * x + 32));
    for (int c = 0; c < 3; ++c) {
      const __m128i v = _mm_or_si128(
          _mm_or_si128(_mm_shuffle_epi8(b0, masks[3 * c]), _mm_shuffle_epi8(b1, masks[3 * c + 1])),
          _mm_shuffle_epi8(b2, masks[3 * c + 2]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(planes[c] + x), v);
    }
  }
#endif
  for (const uint8_t* p = src + 3 * x; x < w; ++x, p += 3) {
    r[x] = p[0];
    g[x] = p[1];
    b[x] = p[2];
  }
}

}  // namespace

FrameConverter::~FrameConverter() {
  sws_freeContext(sws_);  // (rgb_ frees itself)
  av_channel_layout_uninit(&swr_layout_);
}

// Note [Padded RGB rows]
// swscale's x86 YUV -> RGB24 fast path converts whole groups of 8 pixels and, when
// a row of 8-pixel groups would not fit in the destination stride, stops at the last
// whole group: with rows exactly 3 * W bytes and W not a multiple of 8, the last
// W % 8 pixels of each row are never written. (torchvision 0.14's VideoReader has
// this bug: those columns hold stale bytes.) So Ember converts into rows padded past
// the next 8-pixel boundary, as PyAV's and ffmpeg's frame buffers are, and copies
// out the W pixels; the values are then PyAV's and ffmpeg's.
void FrameConverter::convert_padded(const AVFrame* frame) {
  const auto fmt = static_cast<AVPixelFormat>(frame->format);
  EMBER_CHECK(frame->width > 0 && frame->height > 0 && fmt != AV_PIX_FMT_NONE,
              "video: the decoder returned an empty frame");
  // sws_getCachedContext frees the old context itself when it has to make a new one.
  sws_ = sws_getCachedContext(sws_, frame->width, frame->height, fmt, frame->width, frame->height,
                              AV_PIX_FMT_RGB24, sws_flags_, nullptr, nullptr, nullptr);
  EMBER_CHECK(sws_ != nullptr, "video: cannot convert ", av_get_pix_fmt_name(fmt), " frames to RGB");
  rgb_stride_ = FFALIGN(3 * (frame->width + 8), 64);
  const size_t need = static_cast<size_t>(rgb_stride_) * static_cast<size_t>(frame->height);
  if (need > rgb_capacity_) {
    rgb_.reset(static_cast<uint8_t*>(allocated(av_malloc(need))));
    rgb_capacity_ = need;
  }
  uint8_t* planes[4] = {rgb_.get(), nullptr, nullptr, nullptr};
  int strides[4] = {rgb_stride_, 0, 0, 0};
  const int h = sws_scale(sws_, frame->data, frame->linesize, 0, frame->height, planes, strides);
  EMBER_CHECK(h == frame->height, "video: converting a ", av_get_pix_fmt_name(fmt), " frame to RGB failed");
}

void FrameConverter::video_to_rgb(const AVFrame* frame, uint8_t* out) {
  convert_padded(frame);
  const size_t row = 3 * static_cast<size_t>(frame->width);
  for (int y = 0; y < frame->height; ++y) {
    std::memcpy(out + y * row, rgb_.get() + static_cast<size_t>(y) * rgb_stride_, row);
  }
}

Tensor FrameConverter::video_chw(const AVFrame* frame) {
  convert_padded(frame);
  const int64_t h = frame->height, w = frame->width;
  Tensor out = empty({3, h, w}, kUInt8);
  uint8_t* r = out.data_ptr<uint8_t>();
  uint8_t* g = r + h * w;
  uint8_t* b = g + h * w;
  for (int64_t y = 0; y < h; ++y) {
    deinterleave_rgb_row(rgb_.get() + y * rgb_stride_, w, r + y * w, g + y * w, b + y * w);
  }
  return out;
}

SwrContext* FrameConverter::resampler(const AVFrame* frame, AVSampleFormat out_format) {
  const auto in_format = static_cast<AVSampleFormat>(frame->format);
  const bool same = swr_ && in_format == swr_in_format_ && out_format == swr_out_format_ &&
                    frame->sample_rate == swr_rate_ &&
                    av_channel_layout_compare(&frame->ch_layout, &swr_layout_) == 0;
  if (same) return swr_.get();
  EMBER_CHECK(frame->ch_layout.nb_channels > 0 && frame->sample_rate > 0 &&
                  in_format != AV_SAMPLE_FMT_NONE,
              "video: the audio decoder returned a frame without channels or sample rate");
  SwrContext* raw = nullptr;
  // Same rate and layout: only the sample format changes (no resampling).
  // (FFmpeg 5.1 declares the layouts non-const; they are only read.)
  auto* layout = const_cast<AVChannelLayout*>(&frame->ch_layout);
  int r = swr_alloc_set_opts2(&raw, layout, out_format, frame->sample_rate, layout, in_format,
                              frame->sample_rate, 0, nullptr);
  swr_.reset(raw);
  throw_if_out_of_memory(r);
  EMBER_CHECK(r >= 0, "video: cannot set up the audio conversion: ", av_error_text(r));
  r = swr_init(swr_.get());
  throw_if_out_of_memory(r);
  EMBER_CHECK(r >= 0, "video: cannot set up the audio conversion: ", av_error_text(r));
  swr_in_format_ = in_format;
  swr_out_format_ = out_format;
  swr_rate_ = frame->sample_rate;
  av_channel_layout_uninit(&swr_layout_);
  r = av_channel_layout_copy(&swr_layout_, &frame->ch_layout);
  EMBER_CHECK(r >= 0, "video: out of memory");
  return swr_.get();
}

Tensor FrameConverter::audio_interleaved(const AVFrame* frame) {
  SwrContext* swr = resampler(frame, AV_SAMPLE_FMT_FLT);
  const int channels = frame->ch_layout.nb_channels;
  Tensor out = empty({frame->nb_samples, channels}, kFloat32);
  uint8_t* planes[1] = {reinterpret_cast<uint8_t*>(out.data_ptr<float>())};
  const int n = swr_convert(swr, planes, frame->nb_samples,
                            const_cast<const uint8_t**>(frame->extended_data), frame->nb_samples);
  EMBER_CHECK(n == frame->nb_samples, "video: converting audio samples failed");
  return out;
}

Tensor FrameConverter::audio_planar(const AVFrame* frame) {
  SwrContext* swr = resampler(frame, AV_SAMPLE_FMT_FLTP);
  const int channels = frame->ch_layout.nb_channels;
  Tensor out = empty({channels, frame->nb_samples}, kFloat32);
  std::vector<uint8_t*> planes(channels);
  for (int c = 0; c < channels; ++c) {
    planes[c] = reinterpret_cast<uint8_t*>(out.data_ptr<float>() + int64_t{c} * frame->nb_samples);
  }
  const int n = swr_convert(swr, planes.data(), frame->nb_samples,
                            const_cast<const uint8_t**>(frame->extended_data), frame->nb_samples);
  EMBER_CHECK(n == frame->nb_samples, "video: converting audio samples failed");
  return out;
}

}  // namespace ember::io::detail
