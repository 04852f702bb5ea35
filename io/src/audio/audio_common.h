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

// [frames, channels] contiguous -> the caller's layout, contiguous.
Tensor to_layout(const Tensor& frames_channels, bool channels_first);

// Checks load_bytes's data: a defined, non-empty 1-D uint8 CPU tensor; contiguous.
Tensor check_bytes(const char* op, const Tensor& data);

// Interleaved int32 samples (libsox's sox_sample_t scale) from a contiguous
// [frames, channels] float32 / int32 / int16 / uint8 tensor, as torchaudio:
// float: trunc(clamp(x * 2^31)) (NaN -> 0); int16: x << 16; uint8: (x - 128) << 24.
std::vector<int32_t> to_int32_samples(const Tensor& frames_channels);

}  // namespace ember::audio::detail
