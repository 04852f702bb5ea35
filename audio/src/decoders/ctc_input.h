#pragma once
// The decoders' shared input: checked log-probabilities as float64 [batch, time, classes].
#include <cstdint>
#include <optional>
#include <vector>

#include <ember/ember.h>

namespace ember::audio::decoders::detail {

struct CtcFrames {
  int64_t batch = 0;
  int64_t time = 0;
  int64_t classes = 0;
  std::vector<double> values;    // [batch, time, classes], row-major
  std::vector<int64_t> lengths;  // [batch], each in [0, time]
  const double* frame(int64_t n, int64_t t) const {
    return values.data() + (n * time + t) * classes;
  }
};

// Checks layout, dtype, lengths and blank (naming op) and copies to the CPU.
CtcFrames read_ctc_frames(const char* op, const Tensor& log_probs, const std::optional<Tensor>& lengths,
                          int64_t blank, bool batch_first);

}  // namespace ember::audio::decoders::detail
