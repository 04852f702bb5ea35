#pragma once
// Generation with a trained WaveRNN: many utterances at once through
// WaveRNN::infer (batched, every element sampled from its softmax), mu-law
// decoded and cut to each original's length; and the spectral evaluation of
// the results against the originals and two baselines.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/models/wavernn.h>

#include "vocoder_config.h"
#include "vocoder_features.h"

namespace ember::apps::vocoder {

// Waveforms [L_i] at the features' rate -> generated waveforms [L_i]. The
// conditioning features are padded to the longest with 0 (silence, after
// NormalizeDB) and each output is cut to its input's length. `seed` seeds
// the sampler; temperature 1 samples softmax(logits) (torchaudio's infer),
// others softmax(logits / temperature) (Note [Sampling temperature]).
std::vector<Tensor> vocode(models::WaveRNN& net, Features& features, const std::vector<Tensor>& waveforms,
                           uint64_t seed, double temperature = 1.0);

// Draws each step's class from softmax(logits / temperature), by inverting
// the cumulative sum at uniform u[step * batch + b] (as WaveRNN's default
// sampler, which it equals at temperature 1).
models::WaveRNNSampler temperature_sampler(const double* u, int64_t batch, double temperature);

// The mean log-mel L1 distance (Note [The log-mel L1 distance]) of
// `generated` to `originals`, and of the baselines: silence, and white noise
// with each original's RMS (seeded by `seed`).
Evaluation evaluate_distances(Features& features, const std::vector<Tensor>& originals,
                              const std::vector<Tensor>& generated, uint64_t seed);

// Writes a waveform [L] as a 16-bit PCM WAV file.
void write_wav(const std::string& path, const Tensor& waveform, int64_t sample_rate);

}  // namespace ember::apps::vocoder
