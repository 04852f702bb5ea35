// Suite audio: Ember::audio's features, resampling and filters against
// torchaudio 0.13 (in Python, peers/audio.py) and, for the filters and the
// resampling, scipy.signal (the speed ceiling for IIR filtering). Every side
// reads the same float32 samples: the harness writes each input to the
// scratch folder and the peers read it back.
//
// Inputs: 60 s of 16 kHz speech (codec2's speech_orig_16k.wav from
// ../shared/data, repeated to 60 s) and a batch of 32 clips of 4 s cut from
// it; for resampling, 60 s of a 48 kHz and a 44.1 kHz signal (a chirp plus
// noise: resampling does not care whether it is speech). The parameters of
// each workload are peers/audio.py's: keep the two in step.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.h"
#include "ember/audio/audio.h"
#include "speech_recording.h"

namespace {

using ember_bench::Case;
namespace AF = ember::audio::functional;
namespace AT = ember::audio::transforms;

constexpr int64_t kRate = 16000;
constexpr int64_t kSpeechSamples = 60 * kRate;
constexpr int64_t kClips = 32, kClipSamples = 4 * kRate;

// An input on both sides: the tensor Ember runs on and the file the peers read.
struct Input {
  ember::Tensor tensor;  // float32, contiguous
  std::string path;
  std::string shape;  // "32,64000"
};

Input write_input(const std::string& name, ember::Tensor t) {
  t = t.to(ember::kFloat32).contiguous();
  Input in{t, ember_bench::scratch_dir() + "/audio_" + name + ".f32", ""};
  std::ofstream f(in.path, std::ios::binary);
  f.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  if (!f) throw std::runtime_error("cannot write " + in.path);
  for (int64_t d = 0; d < t.dim(); ++d) in.shape += (d ? "," : "") + std::to_string(t.size(d));
  return in;
}

// [1, 60 s] of speech, and the 32 x 4 s batch cut from it at staggered offsets.
const Input& speech_60s() {
  static const Input in = [] {
    return write_input("speech_60s", ember_bench::speech_recording(kSpeechSamples).unsqueeze(0));
  }();
  return in;
}

const Input& speech_batch() {
  static const Input in = [] {
    const ember::Tensor speech = speech_60s().tensor.select(0, 0);
    std::vector<ember::Tensor> clips;
    for (int64_t i = 0; i < kClips; ++i) {
      const int64_t start = (i * 27211) % (kSpeechSamples - kClipSamples);
      clips.push_back(speech.slice(0, start, start + kClipSamples));
    }
    return write_input("speech_batch", ember::stack(clips));
  }();
  return in;
}

// [1, 60 s] at `rate`: a 100 Hz to 0.45 x rate chirp plus a little noise.
Input chirp_60s(int64_t rate) {
  const int64_t n = 60 * rate;
  const ember::Tensor t = ember::arange(n, ember::kFloat64) / static_cast<double>(rate);
  const double f0 = 100, f1 = 0.45 * static_cast<double>(rate), seconds = 60;
  const ember::Tensor phase = 2 * M_PI * (f0 * t + (f1 - f0) / (2 * seconds) * t * t);
  ember::manual_seed(7);
  const ember::Tensor x = 0.5 * ember::sin(phase) + 0.01 * ember::randn({n}, ember::kFloat64);
  return write_input("chirp_" + std::to_string(rate), x.unsqueeze(0));
}

ember_bench::ExternalPeer peer(const std::string& who, const std::string& workload, const Input& in) {
  return {who, {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/audio.py", workload, "--peer", who, "--input", in.path,
                "--shape", in.shape}};
}

// A workload timed against torchaudio (and scipy when `with_scipy`).
Case against(std::function<ember::Tensor()> run, const std::string& workload, const Input& in, bool with_scipy,
             double rtol, double atol) {
  Case c{std::move(run), {}};
  c.peer_name = "";
  c.rtol = rtol;
  c.atol = atol;
  c.external_peers = {peer("torchaudio", workload, in)};
  if (with_scipy) c.external_peers.push_back(peer("scipy", workload, in));
  return c;
}

// The spectral workloads run on the 60 s signal and on the batch.
template <class Make>
std::vector<ember_bench::Workload> on_both(const std::string& name, Make make, double rtol, double atol) {
  return {{"audio", name + "_60s",
           [=] {
             const Input& in = speech_60s();
             return against([m = make(), x = in.tensor] { return (*m)(x); }, name, in, false, rtol, atol);
           }},
          {"audio", name + "_32x4s", [=] {
             const Input& in = speech_batch();
             return against([m = make(), x = in.tensor] { return (*m)(x); }, name, in, false, rtol, atol);
           }}};
}

std::vector<ember_bench::Workload> audio_workloads() {
  std::vector<ember_bench::Workload> all;
  auto add = [&](std::vector<ember_bench::Workload> more) { all.insert(all.end(), more.begin(), more.end()); };
  // Power spectra and their logs differ by float32 rounding of the FFTs.
  add(on_both("spectrogram", [] { return AT::Spectrogram(AT::SpectrogramOptions{.n_fft = 400, .hop_length = 160}).ptr(); },
              1e-3, 1e-3));
  add(on_both("melspectrogram",
              [] {
                return AT::MelSpectrogram(
                           AT::MelSpectrogramOptions{.sample_rate = kRate, .n_fft = 400, .hop_length = 160, .n_mels = 80})
                    .ptr();
              },
              1e-3, 1e-3));
  add(on_both("mfcc",
              [] {
                return AT::MFCC(AT::MFCCOptions{.sample_rate = kRate,
                                                .n_mfcc = 40,
                                                .melkwargs = {.n_fft = 400, .hop_length = 160, .n_mels = 80}})
                    .ptr();
              },
              1e-3, 2e-2));
  for (const auto& [name, rate] : std::vector<std::pair<std::string, int64_t>>{{"resample_48k_16k", 48000},
                                                                               {"resample_44k1_16k", 44100}}) {
    all.push_back({"audio", name + "_60s", [name, rate] {
                     const Input in = chirp_60s(rate);
                     auto resample = AT::Resample(rate, kRate).ptr();
                     return against([resample, x = in.tensor] { return (*resample)(x); }, name, in, true, 1e-4, 1e-5);
                   }});
  }
  all.push_back({"audio", "lowpass_biquad_32x4s", [] {
                   const Input& in = speech_batch();
                   return against([x = in.tensor] { return AF::lowpass_biquad(x, kRate, 1000.0); }, "lowpass_biquad",
                                  in, true, 1e-4, 1e-5);
                 }});
  all.push_back({"audio", "lfilter_order8_32x4s", [] {
                   const Input& in = speech_batch();
                   // scipy.signal.butter(8, 0.2): peers/audio.py computes the same coefficients.
                   const ember::Tensor b =
                       ember::tensor({2.3959644103776194e-05, 0.00019167715283020955, 0.00067087003490573342,
                                      0.0013417400698114668, 0.0016771750872643335, 0.0013417400698114668,
                                      0.00067087003490573342, 0.00019167715283020955, 2.3959644103776194e-05})
                           .to(ember::kFloat32);
                   const ember::Tensor a =
                       ember::tensor({1.0, -4.7845148949958087, 10.445041065534664, -13.457719890241551,
                                      11.129331039163972, -6.0252603972976475, 2.0792738030118763,
                                      -0.41721715698978201, 0.037200100704845224})
                           .to(ember::kFloat32);
                   // scipy runs the transposed direct form II: a float32 order-8 recursion in
                   // another order drifts by ~1e-4 from torchaudio's (which Ember matches bit for bit).
                   return against([x = in.tensor, a, b] { return AF::lfilter(x, a, b, /*clamp=*/false); },
                                  "lfilter_order8", in, true, 1e-3, 5e-4);
                 }});
  all.push_back({"audio", "griffinlim_32iter_10s", [] {
                   // Griffin-Lim reconstructs a waveform from the power spectrogram of 10 s of speech.
                   const ember::Tensor speech = speech_60s().tensor.slice(1, 0, 10 * kRate);
                   const ember::Tensor spec =
                       AT::Spectrogram(AT::SpectrogramOptions{.n_fft = 400, .hop_length = 160})(speech);
                   const Input in = write_input("spec_10s", spec);
                   auto griffin = AT::GriffinLim(
                                      AT::GriffinLimOptions{.n_fft = 400, .n_iter = 32, .hop_length = 160, .rand_init = false})
                                      .ptr();
                   // 32 float32 iterations with momentum 0.99 amplify the FFTs' last-bit differences.
                   return against([griffin, x = in.tensor] { return (*griffin)(x); }, "griffinlim_32", in, false,
                                  2e-2, 1e-2);
                 }});
  all.push_back({"audio", "kaldi_fbank_60s", [] {
                   const Input& in = speech_60s();
                   return against(
                       [x = in.tensor] {
                         return ember::audio::kaldi::fbank(
                             x, {.dither = 0.0, .num_mel_bins = 80, .sample_frequency = static_cast<double>(kRate)});
                       },
                       "kaldi_fbank", in, false, 1e-3, 1e-3);
                 }});
  all.push_back({"audio", "timestretch_60s", [] {
                   // The complex spectrogram of 60 s of speech, handed over as [freq, time, 2].
                   const ember::Tensor speech = speech_60s().tensor.select(0, 0);
                   const ember::Tensor spec = ember::stft(speech, 400, {.hop_length = 160, .window = ember::hann_window(400)});
                   const Input in = write_input("complex_spec_60s", ember::view_as_real(spec));
                   auto stretch = AT::TimeStretch(AT::TimeStretchOptions{.hop_length = 160, .n_freq = 201, .fixed_rate = 1.25}).ptr();
                   return against(
                       [stretch, x = in.tensor] {
                         return ember::view_as_real((*stretch)(ember::view_as_complex(x))).contiguous();
                       },
                       // The accumulated float32 phases reach ~1e6 rad, where one ulp is 0.06 rad:
                       // torch's atan2 (within 1 ulp, not correctly rounded) moves some outputs that much.
                       "timestretch", in, false, 0.1, 0.5);
                 }});
  // Also timed beside a busy process (README "Speed under load"): a batched
  // feature extractor and the IIR kernel, the two parallel hot loops.
  for (auto& w : all) {
    if (w.name == "melspectrogram_32x4s" || w.name == "lfilter_order8_32x4s") {
      w.make = [make = w.make] {
        Case c = make();
        c.under_load = true;
        return c;
      };
    }
  }
  return all;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(audio_workloads());

}  // namespace
