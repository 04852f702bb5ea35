#include "frame_convert.h"

#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include <vector>

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace ember::io::detail {

FrameConverter::~FrameConverter() {
  sws_freeContext(sws_);
  av_channel_layout_uninit(&swr_layout_);
}

void FrameConverter::video_to_rgb(const AVFrame* frame, uint8_t* out) {
  const auto fmt = static_cast<AVPixelFormat>(frame->format);
  EMBER_CHECK(frame->width > 0 && frame->height > 0 && fmt != AV_PIX_FMT_NONE,
              "video: the decoder returned an empty frame");
  // sws_getCachedContext frees the old context itself when it has to make a new one.
  sws_ = sws_getCachedContext(sws_, frame->width, frame->height, fmt, frame->width,
                                          frame->height, AV_PIX_FMT_RGB24, sws_flags_, nullptr,
                                          nullptr, nullptr);
  EMBER_CHECK(sws_ != nullptr, "video: cannot convert ", av_get_pix_fmt_name(fmt), " frames to RGB");
  uint8_t* planes[4] = {out, nullptr, nullptr, nullptr};
  int strides[4] = {3 * frame->width, 0, 0, 0};
  const int h = sws_scale(sws_, frame->data, frame->linesize, 0, frame->height, planes, strides);
  EMBER_CHECK(h == frame->height, "video: converting a ", av_get_pix_fmt_name(fmt),
              " frame to RGB failed");
}

Tensor FrameConverter::video_hwc(const AVFrame* frame) {
  Tensor out = empty({frame->height, frame->width, 3}, kUInt8);
  video_to_rgb(frame, out.data_ptr<uint8_t>());
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
  EMBER_CHECK(r >= 0, "video: cannot set up the audio conversion: ", av_error_text(r));
  r = swr_init(swr_.get());
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
