// sliding_window_cmn, as torchaudio 0.13's functional.py (Kaldi's
// apply-cmvn-sliding). See Note [Sliding CMN windows].
#include <vector>

#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

namespace ember::audio::functional {
namespace {

// Note [Sliding CMN windows]
// torchaudio walks the frames in a Python loop, keeping running sums that add
// the frame entering the window and remove the one leaving it. Its windows
// [start, end) move by at most one frame per step, so those running sums are
// exactly the window sums. Here the windows are computed once on the host with
// torchaudio's rules and the sums taken as differences of prefix sums, in
// float64 (also for float32 input, which keeps long utterances from losing
// digits to the prefix sums' growth). One tensor pass instead of a loop over
// frames, and autograd comes with the ops.
struct CmnWindows {
  std::vector<int64_t> start;
  std::vector<int64_t> end;
};

CmnWindows cmn_windows(int64_t num_frames, int64_t cmn_window, int64_t min_cmn_window, bool center) {
  CmnWindows w;
  w.start.resize(num_frames);
  w.end.resize(num_frames);
  for (int64_t t = 0; t < num_frames; ++t) {
    int64_t start = center ? t - cmn_window / 2 : t - cmn_window;
    int64_t end = center ? start + cmn_window : t + 1;
    if (start < 0) {
      end -= start;
      start = 0;
    }
    if (!center && end > t) end = std::max(t + 1, min_cmn_window);
    if (end > num_frames) {
      start = std::max<int64_t>(start - (end - num_frames), 0);
      end = num_frames;
    }
    w.start[t] = start;
    w.end[t] = end;
  }
  return w;
}

// Window sums [batch, frames, feats] of x [batch, frames, feats] from its prefix sums.
Tensor window_sums(const Tensor& x, const Tensor& start, const Tensor& end) {
  const Tensor zero = zeros({x.size(0), 1, x.size(2)}, x.options());
  const Tensor prefix = cat({zero, x.cumsum(1)}, 1);
  return prefix.index_select(1, end) - prefix.index_select(1, start);
}

}  // namespace

Tensor sliding_window_cmn(const Tensor& specgram, int64_t cmn_window, int64_t min_cmn_window, bool center,
                          bool norm_vars) {
  constexpr const char* op = "sliding_window_cmn";
  EMBER_CHECK(specgram.defined() && specgram.dim() >= 2, op, ": expected a tensor [..., time, freq]");
  EMBER_CHECK(specgram.is_floating_point(), op, ": expected a floating-point tensor, got ", specgram.dtype());
  EMBER_CHECK(cmn_window >= 1, op, ": cmn_window must be at least 1, got ", cmn_window);
  EMBER_CHECK(min_cmn_window >= 0, op, ": min_cmn_window must be non-negative, got ", min_cmn_window);
  const int64_t num_frames = specgram.size(-2);
  const int64_t num_feats = specgram.size(-1);
  if (specgram.numel() == 0) return zeros_like(specgram);

  const CmnWindows windows = cmn_windows(num_frames, cmn_window, min_cmn_window, center);
  std::vector<double> frames(num_frames);
  for (int64_t t = 0; t < num_frames; ++t) frames[t] = static_cast<double>(windows.end[t] - windows.start[t]);
  const auto index_options = TensorOptions().dtype(kInt64).device(specgram.device());
  const Tensor start = tensor(windows.start, index_options);
  const Tensor end = tensor(windows.end, index_options);
  const Tensor window_frames = tensor(frames, TensorOptions().dtype(kFloat64).device(specgram.device()))
                                   .reshape({num_frames, 1});

  const Tensor x = specgram.reshape({-1, num_frames, num_feats}).to(kFloat64);
  const Tensor sum = window_sums(x, start, end);
  Tensor out = x - sum / window_frames;
  if (norm_vars) {
    // torchaudio zeroes frames whose window holds one frame (zero variance);
    // their variance is set to 1 first so that no inf reaches the gradient.
    const Tensor single = window_frames == 1.0;
    Tensor variance = window_sums(x * x, start, end) / window_frames - (sum * sum) / (window_frames * window_frames);
    variance = where(single, 1.0, variance);
    out = where(single, 0.0, out * variance.rsqrt());
  }
  return out.to(specgram.dtype()).reshape(specgram.sizes());
}

}  // namespace ember::audio::functional
