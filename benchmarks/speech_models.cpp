// Suite audio, speech models: Ember::models' Wav2Letter, ConvTasNet and
// WaveRNN against torchaudio 0.13's (peers/speech_models.py, Debian's python3).
//
// - wav2letter_train_step_b16_2s_mfcc: 16 clips of 2 s of 16 kHz speech ->
//   MFCC (13 coefficients, 40 mels, n_fft 400, hop 160) -> Wav2Letter(29
//   classes, "mfcc", 13) -> CTC loss (blank 0, mean) against 16 random
//   character sequences of 24-30 -> backward -> SGD step (lr 0.01, momentum
//   0.9). The features are part of the step, as in a training loop that
//   computes them on the fly.
// - convtasnet_base_fwd_bwd_b4_4s_8k: conv_tasnet_base(2) on 4 mixtures of
//   4 s at 8 kHz (two speech cuts each) -> MSE to the two sources -> backward
//   (gradients set to none before each run; no optimizer step).
// - wavernn_infer_b4_8frames: WaveRNN with torchaudio's pretrained LJSpeech
//   configuration (upsample 5 x 5 x 11 = hop 275, 256 classes, 512-wide GRUs
//   and fc, 80 mels) generating 4 x 8 frames (4 x 2,200 samples) from log-mel
//   spectrograms of speech, each side with its own multinomial sampling.
//   The table's per-unit column is the time per generated sample (all
//   batch elements counted).
//
// Both sides run the same weights (Ember's init, written as a safetensors
// state_dict that the peer loads strictly) on the same inputs (raw files in
// the scratch folder).
//
// The checks. Training: the loss of the first two steps (the second sees the
// first update); ConvTasNet: the loss and the squared norm of the encoder's
// gradient. WaveRNN's outputs are random draws on each side, so its check is
// made once, outside the timing: Ember generates with a sampler that records
// each step's classes and their log-probabilities; the peer replays those
// classes through torchaudio's infer (its torch.multinomial swapped for the
// replay) and returns its log-probability of each one, [N, steps]; the
// timed runs then use infer's own seeded sampler on both sides.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.h"
#include "ember/audio/audio.h"
#include "ember/models/conv_tasnet.h"
#include "ember/models/wav2letter.h"
#include "ember/models/wavernn.h"
#include "speech_recording.h"

namespace {

using ember::Tensor;
using ember_bench::Case;
namespace AT = ember::audio::transforms;
namespace F = ember::nn::functional;

std::string python() {
  const char* p = std::getenv("EMBER_BENCH_PYTHON");
  return p && *p ? p : "/usr/bin/python3";
}

// The files peers/speech_models.py reads for `workload`: its weights and its
// named inputs (raw C-order bytes, described in <workload>.inputs.json).
void write_peer_files(const std::string& workload, const ember::nn::Module& net,
                      const std::vector<std::pair<std::string, Tensor>>& inputs) {
  const std::string base = ember_bench::scratch_dir() + "/" + workload;
  ember::save(base + ".weights.safetensors", net.state_dict());
  std::string spec = "{";
  for (const auto& [name, value] : inputs) {
    const Tensor t = value.contiguous();
    const std::string path = base + "." + name + ".bin";
    std::ofstream f(path, std::ios::binary);
    f.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
    if (!f) throw std::runtime_error("cannot write " + path);
    std::string shape;
    for (int64_t d = 0; d < t.dim(); ++d) shape += (d ? ", " : "") + std::to_string(t.size(d));
    const char* dtype = t.dtype() == ember::kFloat32 ? "float32" : t.dtype() == ember::kInt64 ? "int64" : nullptr;
    if (!dtype) throw std::runtime_error("speech models bench: input " + name + " is neither float32 nor int64");
    spec += (spec.size() > 1 ? ", \"" : "\"") + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": [" + shape + "]}";
  }
  std::ofstream(base + ".inputs.json") << spec << "}\n";
}

ember_bench::ExternalPeer torchaudio_peer(const std::string& workload) {
  return {"torchaudio",
          {python(), ember_bench::source_dir() + "/peers/speech_models.py", workload, "--dir",
           ember_bench::scratch_dir()}};
}

// `count` cuts of `samples` from the speech recording, at staggered offsets: [count, samples].
Tensor speech_cuts(int64_t count, int64_t samples, int64_t stride) {
  const Tensor speech = ember_bench::speech_recording(samples + (count - 1) * stride);
  std::vector<Tensor> cuts;
  for (int64_t i = 0; i < count; ++i) cuts.push_back(speech.slice(0, i * stride, i * stride + samples));
  return ember::stack(cuts);
}

// Returns the first two results of `step` (stacked) on every call after the
// second: a training run's check is where both sides started from the same
// weights, whatever number of steps each side was timed for.
class FirstTwo {
 public:
  Tensor record(const Tensor& loss) {
    if (seen_.size() < 2) seen_.push_back(loss.detach().reshape({1}));
    return seen_.size() == 2 ? ember::cat(seen_) : loss.detach().reshape({1});
  }

 private:
  std::vector<Tensor> seen_;
};

ember_bench::Workload wav2letter_train_step() {
  return {"audio", "wav2letter_train_step_b16_2s_mfcc", [] {
            constexpr int64_t kBatch = 16, kSamples = 2 * 16000, kClasses = 29, kMaxTarget = 30;
            ember::manual_seed(11);
            ember::models::Wav2Letter net(kClasses, "mfcc", 13);
            net->train();
            const Tensor waveform = speech_cuts(kBatch, kSamples, 19937);
            std::vector<int64_t> target_lengths;
            for (int64_t i = 0; i < kBatch; ++i) target_lengths.push_back(24 + i % 7);
            const Tensor targets = ember::randint(1, kClasses, {kBatch, kMaxTarget});
            write_peer_files("wav2letter_train_step", *net,
                             {{"waveform", waveform},
                              {"targets", targets},
                              {"target_lengths", ember::tensor(target_lengths, ember::kInt64)}});
            auto mfcc = AT::MFCC(AT::MFCCOptions{
                                     .sample_rate = 16000,
                                     .n_mfcc = 13,
                                     .melkwargs = {.n_fft = 400, .hop_length = 160, .n_mels = 40}})
                            .ptr();
            auto opt = std::make_shared<ember::optim::SGD>(net->parameters(),
                                                           ember::optim::SGDOptions{.lr = 0.01, .momentum = 0.9});
            auto first_two = std::make_shared<FirstTwo>();
            auto step = [=]() mutable {
              opt->zero_grad();
              Tensor features;
              {
                ember::NoGradGuard no_grad;
                features = (*mfcc)(waveform);
              }
              const Tensor log_probs = net(features).permute({2, 0, 1});  // [frames, N, classes]
              const std::vector<int64_t> input_lengths(kBatch, log_probs.size(0));
              Tensor loss = F::ctc_loss(log_probs, targets, input_lengths, target_lengths);
              loss.backward();
              opt->step();
              return first_two->record(loss);
            };
            // The losses go through 11 float32 convolutions and their gradients.
            Case c{.ember = step, .rtol = 1e-3, .atol = 1e-3};
            c.peer_name = "";
            c.external_peers = {torchaudio_peer("wav2letter_train_step")};
            return c;
          }};
}

ember_bench::Workload convtasnet_fwd_bwd() {
  return {"audio", "convtasnet_base_fwd_bwd_b4_4s_8k", [] {
            constexpr int64_t kBatch = 4, kSamples = 4 * 8000;
            ember::manual_seed(12);
            auto net = ember::models::conv_tasnet_base(2);
            net->train();
            const Tensor cuts = speech_cuts(2 * kBatch, kSamples, 15511);
            const Tensor sources =
                ember::stack({cuts.slice(0, 0, kBatch), 0.6 * cuts.slice(0, kBatch, 2 * kBatch)}, 1).contiguous();
            const Tensor mixture = sources.sum({1}, /*keepdim=*/true).contiguous();  // [N, 1, samples]
            write_peer_files("convtasnet_fwd_bwd", *net, {{"mixture", mixture}, {"sources", sources}});
            auto step = [=]() mutable {
              net->zero_grad();
              Tensor loss = F::mse_loss(net(mixture), sources);
              loss.backward();
              return ember::stack({loss.detach(), net->encoder->weight.grad().pow(2).sum()});
            };
            Case c{.ember = step, .rtol = 1e-3, .atol = 1e-6};
            c.peer_name = "";
            c.external_peers = {torchaudio_peer("convtasnet_fwd_bwd")};
            return c;
          }};
}

ember_bench::Workload wavernn_infer() {
  return {"audio", "wavernn_infer_b4_8frames", [] {
            constexpr int64_t kBatch = 4, kFrames = 8, kHop = 275, kMels = 80;
            ember::manual_seed(13);
            ember::models::WaveRNN net({.upsample_scales = {5, 5, 11},
                                        .n_classes = 256,
                                        .hop_length = kHop,
                                        .n_res_block = 10,
                                        .n_rnn = 512,
                                        .n_fc = 512,
                                        .kernel_size = 5,
                                        .n_freq = kMels,
                                        .n_hidden = 128,
                                        .n_output = 128});
            net->eval();
            // Log-mel spectrograms of speech: [N, 80, 8].
            auto mel_of = AT::MelSpectrogram(AT::MelSpectrogramOptions{
                                                 .sample_rate = 16000, .n_fft = 1024, .hop_length = kHop, .n_mels = kMels})
                              .ptr();
            const Tensor mel =
                ember::log((*mel_of)(speech_cuts(kBatch, (kFrames - 1) * kHop, 23333)).clamp_min(1e-5))
                    .contiguous();
            if (mel.size(2) != kFrames) throw std::runtime_error("wavernn bench: expected 8 mel frames");
            const int64_t steps = kFrames * kHop;
            // The check's trajectory: classes drawn from softmax(logits) with
            // their log-probabilities, recorded.
            Tensor classes = ember::empty({steps, kBatch}, ember::kInt64);
            Tensor log_probs = ember::empty({kBatch, steps}, ember::kFloat32);
            std::mt19937_64 rng(2024);
            std::uniform_real_distribution<double> uniform(0.0, 1.0);
            const ember::models::WaveRNNSampler record = [&](int64_t step, const Tensor& logits,
                                                            std::span<int64_t> chosen) {
              const int64_t k = logits.size(1);
              const float* z = logits.data_ptr<float>();
              for (int64_t n = 0; n < kBatch; ++n) {
                const float* row = z + n * k;
                double top = row[0];
                for (int64_t j = 1; j < k; ++j) top = std::max(top, static_cast<double>(row[j]));
                double total = 0;
                for (int64_t j = 0; j < k; ++j) total += std::exp(row[j] - top);
                double u = uniform(rng) * total;
                int64_t c = 0;
                for (; c < k - 1; ++c) {
                  u -= std::exp(row[c] - top);
                  if (u <= 0) break;
                }
                chosen[static_cast<size_t>(n)] = c;
                classes.data_ptr<int64_t>()[step * kBatch + n] = c;
                log_probs.data_ptr<float>()[n * steps + step] = static_cast<float>(row[c] - top - std::log(total));
              }
            };
            net->infer(mel, std::nullopt, record);
            write_peer_files("wavernn_infer", *net, {{"specgram", mel}, {"classes", classes}});
            auto generate = [=]() mutable {
              ember::Generator generator(7);
              net->infer(mel, std::nullopt, &generator);
              return log_probs;  // the check above: the timed draws are random
            };
            // Logits agree to ~1e-4 of their scale (tests/models/test_wavernn.cpp).
            Case c{.ember = generate, .rtol = 1e-3, .atol = 2e-3, .units = kBatch * steps, .unit_name = "sample"};
            c.peer_name = "";
            c.external_peers = {torchaudio_peer("wavernn_infer")};
            return c;
          }};
}

[[maybe_unused]] const bool kRegistered =
    ember_bench::add_workloads({wav2letter_train_step(), convtasnet_fwd_bwd(), wavernn_infer()});

}  // namespace
