// Suite fft: ember::fft / ember::stft vs torch.fft / torch.stft, float32 and
// complex64, with FFTW as the speed ceiling where it was found at build time
// (fftw_ceiling.h). Sizes: powers of two, a size with factors 2, 3, 5 and 7
// (44100, one second of CD audio), a prime (1000003) and a 1024x1024 image;
// the stft is a minute of 16 kHz audio with Whisper's front-end settings
// (n_fft 400, hop 160, Hann window).
#include <cmath>

#include "bench.h"
#include "ember/fft.h"
#include "ember/ops/spectral.h"
#include "ember/ops/windows.h"
#include "fftw_ceiling.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;

// Random inputs make outputs of size ~sqrt(n); float32 rounding grows with
// log2(n) per butterfly stage, and implementations differ in their order of
// operations.
double fft_atol(int64_t n) { return 5e-6 * std::sqrt(double(n)) * std::log2(double(n)); }
constexpr double kFftRtol = 1e-4;

// Attaches FFTW's version of the workload (none when the build has no FFTW).
Case with_ceiling(Case c, std::optional<ember_bench::Ceiling> ceiling) {
  c.ceiling = std::move(ceiling);
  return c;
}

ember_bench::Workload rfft(int64_t n) {
  return {"fft", "rfft_f32_" + std::to_string(n), [n] {
            auto x = twin(at::randn({n}));
            Case c{[=] { return ember::fft::rfft(x.e); }, [=] { return at::fft_rfft(x.t); }, 0, kFftRtol,
                   fft_atol(n)};
            return with_ceiling(c, ember_bench::fftw::rfft(x.t));
          }};
}

ember_bench::Workload fft(int64_t n) {
  return {"fft", "fft_c64_" + std::to_string(n), [n] {
            auto x = twin(at::randn({n}, at::kComplexFloat));
            Case c{[=] { return ember::fft::fft(x.e); }, [=] { return at::fft_fft(x.t); }, 0, kFftRtol,
                   fft_atol(n)};
            return with_ceiling(c, ember_bench::fftw::fft(x.t));
          }};
}

ember_bench::Workload fft2(int64_t h, int64_t w) {
  return {"fft", "fft2_c64_" + std::to_string(h) + "x" + std::to_string(w), [h, w] {
            auto x = twin(at::randn({h, w}, at::kComplexFloat));
            Case c{[=] { return ember::fft::fft2(x.e); }, [=] { return at::fft_fft2(x.t); }, 0, kFftRtol,
                   fft_atol(h * w)};
            return with_ceiling(c, ember_bench::fftw::fft2(x.t));
          }};
}

// torch.stft(x, n_fft, hop, window=hann_window(n_fft), center=True,
// pad_mode="reflect", return_complex=True) of `seconds` of audio at `rate` Hz.
ember_bench::Workload stft(int64_t seconds, int64_t rate, int64_t n_fft, int64_t hop) {
  const std::string name = "stft_" + std::to_string(seconds) + "s_" + std::to_string(rate / 1000) + "k_n" +
                           std::to_string(n_fft) + "_h" + std::to_string(hop);
  return {"fft", name, [=] {
            auto x = twin(at::randn({seconds * rate}));
            auto window = twin(at::hann_window(n_fft));
            auto ours = [=] {
              return ember::stft(x.e, n_fft, {.hop_length = hop, .window = window.e, .return_complex = true});
            };
            auto peer = [=] {
              return at::stft(x.t, n_fft, hop, n_fft, window.t, /*center=*/true, "reflect",
                              /*normalized=*/false, /*onesided=*/true, /*return_complex=*/true);
            };
            Case c{ours, peer, 0, kFftRtol, fft_atol(n_fft)};
            return with_ceiling(c, ember_bench::fftw::stft(x.t, n_fft, hop, window.t));
          }};
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({
    rfft(int64_t(1) << 16),
    rfft(int64_t(1) << 20),
    fft(int64_t(1) << 20),
    fft(44100),
    fft(1000003),
    fft2(1024, 1024),
    stft(60, 16000, 400, 160),
});

}  // namespace
