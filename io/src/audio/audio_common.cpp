// Argument checks and layouts shared by the audio backends.
#include "audio/audio_common.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include <ember/core/error.h>
#include <ember/ops/factories.h>

namespace ember::audio::detail {

std::string lower_extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string save_format(const std::string& path, const std::string& format) {
  std::string f = format.empty() ? lower_extension(path) : format;
  std::transform(f.begin(), f.end(), f.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  EMBER_CHECK(!f.empty(), "audio::save: cannot tell the format of '", path,
              "' (no extension): pass format, e.g. \"wav\"");
  return f;
}

void check_frame_range(const char* op, int64_t frame_offset, int64_t num_frames) {
  EMBER_CHECK(frame_offset >= 0, op, ": frame_offset must be non-negative, got ", frame_offset);
  EMBER_CHECK(num_frames == -1 || num_frames > 0, op,
              ": num_frames must be -1 or greater than 0, got ", num_frames);
}

Tensor frames_major(const char* op, const Tensor& src, int64_t sample_rate, bool channels_first) {
  EMBER_CHECK(src.defined(), op, ": expected a tensor, got an undefined tensor");
  EMBER_CHECK(src.is_cpu(), op, ": expected a CPU tensor, got one on ", src.device());
  EMBER_CHECK(src.dim() == 2, op, ": expected a 2-D tensor ([channels, frames] or "
              "[frames, channels]), got shape ", src.sizes());
  const DType t = src.dtype();
  EMBER_CHECK(t == kFloat32 || t == kInt32 || t == kInt16 || t == kUInt8, op,
              ": expected a float32, int32, int16 or uint8 tensor, got ", dtype_name(t));
  EMBER_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  const int64_t channels = src.size(channels_first ? 0 : 1);
  EMBER_CHECK(channels > 0, op, ": expected at least one channel, got shape ", src.sizes());
  return (channels_first ? src.transpose(0, 1) : src).contiguous();
}

template <class T>
Tensor from_interleaved(const T* samples, int64_t frames, int64_t channels, DType dtype,
                        bool channels_first) {
  Tensor t = channels_first ? empty({channels, frames}, dtype) : empty({frames, channels}, dtype);
  if (t.numel() == 0) return t;  // `samples` may be null then
  T* out = static_cast<T*>(t.data_ptr());
  if (!channels_first || channels == 1) {
    std::memcpy(out, samples, t.nbytes());
  } else {
    for (int64_t c = 0; c < channels; ++c) {
      T* row = out + c * frames;
      const T* src = samples + c;
      for (int64_t i = 0; i < frames; ++i) row[i] = src[i * channels];
    }
  }
  return t;
}
template Tensor from_interleaved<float>(const float*, int64_t, int64_t, DType, bool);
template Tensor from_interleaved<int32_t>(const int32_t*, int64_t, int64_t, DType, bool);
template Tensor from_interleaved<int16_t>(const int16_t*, int64_t, int64_t, DType, bool);
template Tensor from_interleaved<uint8_t>(const uint8_t*, int64_t, int64_t, DType, bool);

Tensor check_bytes(const char* op, const Tensor& data) {
  EMBER_CHECK(data.defined(), op, ": expected a tensor, got an undefined tensor");
  EMBER_CHECK(data.dtype() == kUInt8, op, ": expected uint8 bytes, got ", dtype_name(data.dtype()));
  EMBER_CHECK(data.is_cpu(), op, ": expected a CPU tensor, got one on ", data.device());
  EMBER_CHECK(data.dim() == 1, op, ": expected a 1-D tensor, got shape ", data.sizes());
  EMBER_CHECK(data.numel() > 0, op, ": empty data");
  return data.contiguous();
}

std::vector<int32_t> to_int32_samples(const Tensor& t) {
  const size_t n = static_cast<size_t>(t.numel());
  std::vector<int32_t> out(n);
  if (t.dtype() == kFloat32) {
    const float* p = t.data_ptr<float>();
    for (size_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(p[i]) * 2147483648.0;
      out[i] = std::isnan(v)             ? 0
               : v >= 2147483647.0       ? INT32_MAX
               : v <= -2147483648.0      ? INT32_MIN
                                         : static_cast<int32_t>(v);  // truncates, as torchaudio
    }
  } else if (t.dtype() == kInt32) {
    if (n) std::memcpy(out.data(), t.data_ptr(), n * sizeof(int32_t));
  } else if (t.dtype() == kInt16) {
    const int16_t* p = t.data_ptr<int16_t>();
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(p[i]) * 65536;
  } else {
    const uint8_t* p = t.data_ptr<uint8_t>();
    for (size_t i = 0; i < n; ++i) out[i] = (static_cast<int32_t>(p[i]) - 128) * 16777216;
  }
  return out;
}

}  // namespace ember::audio::detail
