#pragma once
// Decoded AVFrames to tensors: video to RGB24 through swscale, audio to
// interleaved float through swresample. The contexts are cached across frames
// and rebuilt when a frame's size or format changes mid-stream.
#include <ember/core/tensor.h>

#include "ffmpeg_raii.h"

namespace ember::io::detail {

class FrameConverter {
 public:
  // flags: swscale's interpolation flags; SWS_AREA is torchvision's VideoReader
  // choice, SWS_BILINEAR PyAV's (read_video). For the unscaled conversions done
  // here they give the same pixels; they are kept apart to stay faithful.
  explicit FrameConverter(int sws_flags) : sws_flags_(sws_flags) {}
  ~FrameConverter();
  FrameConverter(const FrameConverter&) = delete;
  FrameConverter& operator=(const FrameConverter&) = delete;

  // Writes the frame as H x W x 3 RGB24 rows to `out` (row stride 3 * W).
  void video_to_rgb(const AVFrame* frame, uint8_t* out);
  // [H, W, 3] uint8.
  Tensor video_hwc(const AVFrame* frame);
  // [samples, channels] float32, interleaved.
  Tensor audio_interleaved(const AVFrame* frame);
  // [channels, samples] float32, planar.
  Tensor audio_planar(const AVFrame* frame);

 private:
  SwrContext* resampler(const AVFrame* frame, AVSampleFormat out_format);

  int sws_flags_;
  SwsContext* sws_ = nullptr;  // owned; raw because sws_getCachedContext replaces it in place
  SwrPtr swr_;
  AVSampleFormat swr_in_format_ = AV_SAMPLE_FMT_NONE, swr_out_format_ = AV_SAMPLE_FMT_NONE;
  int swr_rate_ = 0;
  AVChannelLayout swr_layout_{};
};

}  // namespace ember::io::detail
