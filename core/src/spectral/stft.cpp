// stft / istft (ember/ops/spectral.h), composed of differentiable ops so that
// autograd (and double backward) come from the pieces: pad, unfold, mul and
// the ember::fft transforms forward; irfft/ifft, mul and index_add (the
// overlap-add) inverse. Argument checks and defaults follow PyTorch 1.13.
#include "ember/ops/spectral.h"

#include "ember/core/error.h"
#include "ember/fft.h"
#include "ember/ops/complex.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember {
namespace {

struct FrameGeometry {
  int64_t hop = 0;
  int64_t win_length = 0;
};

FrameGeometry frame_geometry(const char* op, int64_t n_fft, std::optional<int64_t> hop_length,
                             std::optional<int64_t> win_length) {
  EMBER_CHECK(n_fft > 0, op, ": expected n_fft > 0, got ", n_fft);
  FrameGeometry g{hop_length.value_or(n_fft / 4), win_length.value_or(n_fft)};
  EMBER_CHECK(g.hop > 0, op, ": expected hop_length > 0, got ", g.hop);
  EMBER_CHECK(g.win_length > 0 && g.win_length <= n_fft, op, ": expected 0 < win_length <= n_fft, got win_length=",
              g.win_length, " and n_fft=", n_fft);
  return g;
}

// The window zero-padded on both sides to n_fft (left: (n_fft - win_length) / 2),
// or an undefined tensor for the rectangular window of length n_fft.
Tensor padded_window(const char* op, const Tensor& window, int64_t win_length, int64_t n_fft, Device device) {
  if (!window.defined()) {
    if (win_length == n_fft) return {};
    return constant_pad_nd(ones({win_length}, TensorOptions().device(device)), {(n_fft - win_length) / 2, n_fft - win_length - (n_fft - win_length) / 2});
  }
  EMBER_CHECK(window.dim() == 1 && window.size(0) == win_length, op,
              ": expected a 1D window tensor of size equal to win_length=", win_length, ", but got window with size ",
              window.sizes());
  if (win_length == n_fft) return window;
  const int64_t left = (n_fft - win_length) / 2;
  return constant_pad_nd(window, {left, n_fft - win_length - left});
}

}  // namespace

Tensor stft(const Tensor& input, int64_t n_fft, const StftOptions& options) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "stft: expected a 1D or 2D tensor, got ", input.dim(), "D");
  const FrameGeometry g = frame_geometry("stft", n_fft, options.hop_length, options.win_length);
  Tensor x = input.dim() == 1 ? input.unsqueeze(0) : input;
  if (!is_floating_point(x.dtype()) && !is_complex(x.dtype())) x = x.to(default_dtype());

  if (options.center) {
    const int64_t p = n_fft / 2;
    // pad's non-constant modes work on [N, C, L]: view the signal as one channel.
    EMBER_CHECK(options.pad_mode != "reflect" || x.size(1) > p, "stft: reflect padding needs a signal longer than ",
                "n_fft / 2 = ", p, ", got length ", x.size(1));
    if (options.pad_mode == "constant") {
      x = constant_pad_nd(x, {p, p});
    } else if (options.pad_mode == "reflect" && p > 0) {
      // The default mode, built from two short flipped slices and one cat: on
      // long signals this is several times faster than the index-map kernel
      // behind pad(), which maps every output sample.
      const int64_t n = x.size(1);
      x = cat({x.narrow(1, 1, p).flip({1}), x, x.narrow(1, n - 1 - p, p).flip({1})}, 1);
    } else {
      x = pad(x.unsqueeze(1), {p, p}, options.pad_mode).squeeze(1);
    }
  }
  const int64_t length = x.size(1);
  EMBER_CHECK(n_fft <= length, "stft: expected 0 < n_fft <= ", length, " (the ", options.center ? "padded " : "",
              "signal length), got n_fft=", n_fft);

  const Tensor window = padded_window("stft", options.window, g.win_length, n_fft, x.device());
  const bool complex_case = is_complex(x.dtype()) || (window.defined() && is_complex(window.dtype()));
  const bool onesided = options.onesided.value_or(!complex_case);
  EMBER_CHECK(!(onesided && complex_case), "stft: onesided output is not possible with a complex input or window; ",
              "pass onesided=false");

  // [batch, frames, n_fft]: a strided view of the (padded) signal.
  Tensor frames = x.unfold(1, n_fft, g.hop);
  if (window.defined()) frames = frames * window;
  const fft::OptionalNorm norm = options.normalized ? fft::OptionalNorm("ortho") : std::nullopt;
  Tensor spec = onesided ? fft::rfft(frames, std::nullopt, -1, norm) : fft::fft(frames, std::nullopt, -1, norm);
  spec = spec.transpose(1, 2);  // [batch, freq, frames]
  if (input.dim() == 1) spec = spec.squeeze(0);
  return options.return_complex ? spec : view_as_real(spec.resolve_conj());
}

Tensor istft(const Tensor& input, int64_t n_fft, const IstftOptions& options) {
  EMBER_CHECK(is_complex(input.dtype()), "istft: expected a complex input tensor (use view_as_complex on a real ",
              "[..., 2] tensor), got ", dtype_name(input.dtype()));
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "istft: expected a 2D [freq, frames] or 3D [batch, freq, ",
              "frames] tensor, got ", input.dim(), "D");
  const FrameGeometry g = frame_geometry("istft", n_fft, options.hop_length, options.win_length);
  Tensor spec = input.dim() == 2 ? input.unsqueeze(0) : input;
  const int64_t n_freq = spec.size(1), n_frames = spec.size(2);
  EMBER_CHECK(n_frames > 0, "istft: expected at least one frame, got input of size ", input.sizes());

  const bool onesided = options.onesided.value_or(n_freq != n_fft);
  if (onesided) {
    EMBER_CHECK(n_fft / 2 + 1 == n_freq, "istft: expected the frequency dimension (", n_freq,
                ") to equal n_fft / 2 + 1 = ", n_fft / 2 + 1, " when onesided=true");
  } else {
    EMBER_CHECK(n_fft == n_freq, "istft: expected the frequency dimension (", n_freq, ") to equal n_fft = ", n_fft,
                " when onesided=false");
  }
  Tensor window = padded_window("istft", options.window, g.win_length, n_fft, spec.device());
  if (!window.defined()) window = ones({n_fft}, TensorOptions(to_real_dtype(spec.dtype())).device(spec.device()));

  // [batch, frames, n_fft] time-domain frames.
  const fft::OptionalNorm norm = options.normalized ? fft::OptionalNorm("ortho") : std::nullopt;
  Tensor frames;
  spec = spec.transpose(1, 2);
  if (options.return_complex) {
    EMBER_CHECK(!onesided, "istft: cannot have onesided output if the window or input is complex; pass ",
                "onesided=false with return_complex=true");
    frames = fft::ifft(spec, n_fft, -1, norm);
  } else {
    EMBER_CHECK(!is_complex(window.dtype()), "istft: complex windows are incompatible with return_complex=false");
    if (!onesided) spec = spec.narrow(-1, 0, n_fft / 2 + 1);
    frames = fft::irfft(spec, n_fft, -1, norm);
  }
  frames = frames * window;

  // Overlap-add: output sample f * hop + k receives frame f's sample k.
  const int64_t full_length = n_fft + g.hop * (n_frames - 1);
  const Tensor positions =
      (arange(n_frames, TensorOptions(kInt64).device(frames.device())).unsqueeze(1) * g.hop +
       arange(n_fft, TensorOptions(kInt64).device(frames.device())))
          .flatten();
  const int64_t batch = frames.size(0);
  Tensor y = zeros({batch, full_length}, frames.options())
                 .index_add(1, positions, frames.reshape({batch, n_frames * n_fft}));
  // The squared window (not |w|^2: a complex window multiplies twice, once in
  // stft and once here), overlap-added the same way. Differentiable, as in PyTorch.
  const Tensor window_sq = window * window;
  Tensor envelope = zeros({full_length}, window_sq.options())
                        .index_add(0, positions, window_sq.expand({n_frames, n_fft}).reshape({-1}));

  const int64_t start = options.center ? n_fft / 2 : 0;
  int64_t end = options.length ? start + *options.length : (options.center ? full_length - n_fft / 2 : full_length);
  EMBER_CHECK(!options.length || *options.length >= 0, "istft: expected length >= 0, got ", *options.length);
  const int64_t kept_end = std::min(end, full_length);
  EMBER_CHECK(kept_end >= start, "istft: the signal is too short (", full_length, " samples) for center=true");
  y = y.narrow(1, start, kept_end - start);
  envelope = envelope.narrow(0, start, kept_end - start);
  EMBER_CHECK(envelope.numel() == 0 || envelope.abs().min().item<double>() >= 1e-11,
              "istft: window overlap add min: the squared window summed over overlapping frames is below 1e-11 ",
              "somewhere (the NOLA condition fails for this window and hop_length=", g.hop, ")");
  y = y / envelope;
  if (end > full_length) y = constant_pad_nd(y, {0, end - full_length});
  if (input.dim() == 2) y = y.squeeze(0);
  return y;
}

}  // namespace ember
