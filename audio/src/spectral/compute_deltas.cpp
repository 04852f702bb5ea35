// compute_deltas, as torchaudio 0.13's functional.py. torchaudio convolves the
// padded signal with the kernel [-N .. N] (conv1d, one group per row); the same
// sum is taken here as N shifted differences, which needs no convolution
// backend for float64 and is cheaper for the usual N = 2.
#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

namespace ember::audio::functional {

Tensor compute_deltas(const Tensor& specgram, int64_t win_length, const std::string& mode) {
  constexpr const char* op = "compute_deltas";
  EMBER_CHECK(specgram.defined() && specgram.dim() >= 1, op, ": expected a tensor [..., freq, time]");
  EMBER_CHECK(specgram.is_floating_point(), op, ": expected a floating-point tensor, got ", specgram.dtype());
  EMBER_CHECK(win_length >= 3, op, ": window length should be greater than or equal to 3, got win_length ",
              win_length);
  EMBER_CHECK(mode == "replicate" || mode == "reflect" || mode == "constant" || mode == "circular", op,
              ": mode must be \"replicate\", \"reflect\", \"constant\" or \"circular\", got \"", mode, "\"");
  const int64_t n = (win_length - 1) / 2;
  const int64_t time = specgram.size(-1);
  EMBER_CHECK(time > 0, op, ": the time dimension is empty");
  EMBER_CHECK(mode != "reflect" || n < time, op, ": reflect padding by ", n, " needs more than ", n,
              " frames, got ", time);
  EMBER_CHECK(mode != "circular" || n <= time, op, ": circular padding by ", n, " needs at least ", n,
              " frames, got ", time);

  // Twice the sum of the squared integers 1..n.
  const double denom = static_cast<double>(n * (n + 1) * (2 * n + 1)) / 3;
  const Tensor padded = ember::pad(specgram.reshape({1, -1, time}), {n, n}, mode);
  Tensor acc = padded.narrow(-1, n + 1, time) - padded.narrow(-1, n - 1, time);
  for (int64_t k = 2; k <= n; ++k) acc = acc + (padded.narrow(-1, n + k, time) - padded.narrow(-1, n - k, time)) * k;
  return (acc / denom).reshape(specgram.sizes());
}

}  // namespace ember::audio::functional
