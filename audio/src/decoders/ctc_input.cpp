// Input checks shared by the CTC decoders.
#include "decoders/ctc_input.h"

#include <cmath>

namespace ember::audio::decoders::detail {

CtcFrames read_ctc_frames(const char* op, const Tensor& log_probs, const std::optional<Tensor>& lengths,
                          int64_t blank, bool batch_first) {
  EMBER_CHECK(log_probs.defined(), op, ": log_probs must be a defined tensor");
  EMBER_CHECK(log_probs.is_floating_point(), op, ": expected floating-point log_probs, got ", log_probs.dtype());
  EMBER_CHECK(log_probs.dim() == 2 || log_probs.dim() == 3, op,
              ": expected log_probs [time, batch, classes], [batch, time, classes] (batch_first) or "
              "[time, classes], got shape ",
              log_probs.sizes());
  // To [batch, time, classes].
  Tensor ntc = log_probs.dim() == 2 ? log_probs.unsqueeze(0) : (batch_first ? log_probs : log_probs.transpose(0, 1));
  CtcFrames frames;
  frames.batch = ntc.size(0);
  frames.time = ntc.size(1);
  frames.classes = ntc.size(2);
  EMBER_CHECK(frames.classes > 0, op, ": log_probs has no classes (shape ", log_probs.sizes(), ")");
  EMBER_CHECK(blank >= 0 && blank < frames.classes, op, ": blank ", blank, " is out of range for ", frames.classes,
              " classes");
  const Tensor cpu = ntc.detach().to(kCPU, kFloat64).contiguous();
  const auto* data = cpu.data_ptr<double>();
  frames.values.assign(data, data + cpu.numel());
  for (const double v : frames.values) {
    EMBER_CHECK(!std::isnan(v) && v != INFINITY, op, ": log_probs contains NaN or +inf");
  }
  if (lengths) {
    const Tensor& l = *lengths;
    EMBER_CHECK(l.defined(), op, ": lengths must be a defined tensor");
    EMBER_CHECK(!l.is_floating_point() && !l.is_complex() && l.dtype() != kBool, op,
                ": lengths must be an integer tensor, got ", l.dtype());
    EMBER_CHECK(l.dim() == 1 && l.size(0) == frames.batch, op, ": lengths must be [", frames.batch, "], got shape ",
                l.sizes());
    const Tensor lc = l.to(kCPU, kInt64).contiguous();
    const auto* lp = lc.data_ptr<int64_t>();
    for (int64_t n = 0; n < frames.batch; ++n) {
      EMBER_CHECK(lp[n] >= 0 && lp[n] <= frames.time, op, ": lengths[", n, "] = ", lp[n], " is outside [0, ",
                  frames.time, "]");
      frames.lengths.push_back(lp[n]);
    }
  } else {
    frames.lengths.assign(static_cast<size_t>(frames.batch), frames.time);
  }
  return frames;
}

}  // namespace ember::audio::decoders::detail
