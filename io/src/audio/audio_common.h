#pragma once
// Helpers shared by the audio backends (io/src/audio/): argument checks and
// layouts. Nothing here depends on libsox or FFmpeg.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::audio::detail {

// The lower-case extension of path without the dot ("" when there is none).
std::string lower_extension(const std::string& path);

// `format` when given, else the extension of `path`, lower-cased.
std::string save_format(const std::string& path, const std::string& format);

// Checks load's frame_offset / num_frames as torchaudio does.
void check_frame_range(const char* op, int64_t frame_offset, int64_t num_frames);

// Checks save's tensor: defined, CPU, 2-D, float32 / int32 / int16 / uint8, and
// the sample rate; returns it as a contiguous [frames, channels] tensor.
Tensor frames_major(const char* op, const Tensor& src, int64_t sample_rate, bool channels_first);

// A waveform tensor of `frames` x `channels` interleaved samples of type T
// (dtype), in the caller's layout ([channels, frames] when channels_first):
// one pass, no intermediate tensor.
template <class T>
Tensor from_interleaved(const T* samples, int64_t frames, int64_t channels, DType dtype,
                        bool channels_first);
extern template Tensor from_interleaved<float>(const float*, int64_t, int64_t, DType, bool);
extern template Tensor from_interleaved<int32_t>(const int32_t*, int64_t, int64_t, DType, bool);
extern template Tensor from_interleaved<int16_t>(const int16_t*, int64_t, int64_t, DType, bool);
extern template Tensor from_interleaved<uint8_t>(const uint8_t*, int64_t, int64_t, DType, bool);

// Checks load_bytes's data: a defined, non-empty 1-D uint8 CPU tensor; contiguous.
Tensor check_bytes(const char* op, const Tensor& data);

// Interleaved int32 samples (libsox's sox_sample_t scale) from a contiguous
// [frames, channels] float32 / int32 / int16 / uint8 tensor, as torchaudio:
// float: trunc(clamp(x * 2^31)) (NaN -> 0); int16: x << 16; uint8: (x - 128) << 24.
std::vector<int32_t> to_int32_samples(const Tensor& frames_channels);

}  // namespace ember::audio::detail
