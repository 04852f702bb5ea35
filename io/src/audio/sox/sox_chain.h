#pragma once
// A libsox effects chain fed from samples in memory or a sox_format_t, draining
// into a sample vector or a sox_format_t: the machinery behind load, save and
// apply_effects_* (as torchaudio's SoxEffectsChain, so values match torchaudio's).
//
// Callbacks never throw through libsox's C frames: they record the failure and
// return SOX_EOF; run() throws afterwards.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/io/audio.h>

#include "audio/sox/sox_raii.h"

namespace ember::audio::sox_detail {

class EffectsChain {
 public:
  // op names the public function in error messages ("audio::load").
  EffectsChain(const char* op, sox_encodinginfo_t in_encoding, sox_encodinginfo_t out_encoding);

  // Interleaved int32 samples (sox_sample_t), kept alive by the caller until run().
  void add_input_samples(const std::vector<sox_sample_t>* samples, sox_signalinfo_t signal);
  // Reads sf (kept open by the caller) to its end or until the chain stops.
  void add_input_file(sox_format_t* sf);
  // {name, option, ...}: as on the sox command line.
  void add_effect(const std::vector<std::string>& effect);
  void add_output_samples(std::vector<sox_sample_t>* out);
  void add_output_file(sox_format_t* sf);
  void run();
  // Names the data in run()'s errors ("audio::load: 'x.flac': ...").
  void set_label(std::string label) { label_ = std::move(label); }

  unsigned out_channels() const { return interm_.channels; }
  int64_t out_rate() const { return static_cast<int64_t>(interm_.rate); }
  // For file input: samples read and whether the reader reached the end.
  uint64_t samples_read() const { return state_.samples_read; }
  bool input_ended() const { return state_.input_ended; }

  // What the callbacks reach through their priv pointer.
  struct State {
    const std::vector<sox_sample_t>* in_samples = nullptr;
    size_t in_index = 0;
    sox_format_t* in_file = nullptr;
    uint64_t samples_read = 0;
    bool input_ended = false;
    std::vector<sox_sample_t>* out_samples = nullptr;
    sox_format_t* out_file = nullptr;
    std::string error;  // first failure inside a callback
  };

 private:
  void add(sox_effect_t* e, sox_signalinfo_t* out_signal, const std::string& what);

  const char* op_;
  std::string label_;
  sox_encodinginfo_t in_enc_, out_enc_;
  sox_signalinfo_t in_sig_{}, interm_{}, out_sig_{};
  SoxChain chain_;
  State state_;
};

// Interleaved int32 samples from a contiguous [frames, channels] tensor, with
// torchaudio's scaling (float: trunc(clamp(x * 2^31)); int16: x << 16;
// uint8: (x - 128) << 24).
std::vector<sox_sample_t> to_sox_samples(const Tensor& frames_channels);

// The signal / encoding libsox is told for a tensor of this dtype (torchaudio's).
sox_encodinginfo_t tensor_encoding(DType dtype);
unsigned tensor_precision(DType dtype);

// int32 samples -> a waveform of dtype (float32 through SOX_SAMPLE_TO_FLOAT_32BIT,
// int16 / uint8 through libsox's rounding macros) in the caller's layout.
// A trailing partial frame is dropped.
Tensor from_sox_samples(const std::vector<sox_sample_t>& samples, unsigned channels, DType dtype,
                        bool channels_first);

}  // namespace ember::audio::sox_detail

namespace ember::audio::sox_detail {

// Opens `path` (format "" = detect) for reading; raises naming op and path.
SoxFormat open_read(const char* op, const std::string& path, const std::string& format);
// Opens an in-memory file; `bytes` must outlive the result.
SoxFormat open_mem_read(const char* op, const Tensor& bytes, const std::string& format);

// Runs sf through `effects` into a tensor, as torchaudio's apply_effects_file:
// normalize = false keeps integer WAV types. `label` names the source in errors.
// Raises when the reader fails or a file of exact length (PCM, FLAC, ...) ends
// before the frames its header declares (a truncated file).
Waveform read_through_effects(const char* op, sox_format_t* sf, const std::string& label,
                              const std::vector<std::vector<std::string>>& effects,
                              bool normalize, bool channels_first);

}  // namespace ember::audio::sox_detail
