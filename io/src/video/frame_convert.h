#pragma once
// Decoded AVFrames to tensors: video to RGB24 through swscale, audio to
// interleaved float through swresample. The contexts are cached across frames
// and rebuilt when a frame's size or format changes mid-stream.
#include <memory>

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
  // [3, H, W] uint8, contiguous.
  Tensor video_chw(const AVFrame* frame);
  // [samples, channels] float32, interleaved.
  Tensor audio_interleaved(const AVFrame* frame);
  // [channels, samples] float32, planar.
  Tensor audio_planar(const AVFrame* frame);

 private:
  SwrContext* resampler(const AVFrame* frame, AVSampleFormat out_format);
  // Converts into rgb_ (rows of rgb_stride_ bytes); see Note [Padded RGB rows].
  void convert_padded(const AVFrame* frame);

  int sws_flags_;
  SwsContext* sws_ = nullptr;  // owned; raw because sws_getCachedContext replaces it in place
  struct AvFree {
    void operator()(uint8_t* p) const { av_free(p); }
  };
  std::unique_ptr<uint8_t, AvFree> rgb_;  // padded RGB24 scratch rows
  size_t rgb_capacity_ = 0;
  int rgb_stride_ = 0;
  SwrPtr swr_;
  AVSampleFormat swr_in_format_ = AV_SAMPLE_FMT_NONE, swr_out_format_ = AV_SAMPLE_FMT_NONE;
  int swr_rate_ = 0;
  AVChannelLayout swr_layout_{};
};

}  // namespace ember::io::detail
