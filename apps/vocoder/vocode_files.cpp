#include "vocode_files.h"

#include <cstdio>
#include <filesystem>

#include <ember/audio/functional/resample.h>
#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <ember/io/audio.h>

#include "vocoder_checkpoint.h"
#include "vocoder_generate.h"

namespace ember::apps::vocoder {

namespace fs = std::filesystem;

std::vector<VocodedFile> vocode_files(const std::string& checkpoint, const std::vector<std::string>& inputs,
                                      const std::string& out, uint64_t seed, int64_t threads,
                                      double temperature) {
  EMBER_CHECK(!inputs.empty(), "ember-vocoder: --vocode needs one or more WAV files");
  if (threads > 0) set_num_threads(static_cast<int>(threads));
  const VocoderCheckpoint ckpt = load_vocoder_checkpoint(checkpoint);
  models::WaveRNN net = load_vocoder_model(ckpt);
  Features features(ckpt.features);
  const int64_t rate = ckpt.features.sample_rate;
  std::vector<Tensor> waves;
  for (const std::string& path : inputs) {
    EMBER_CHECK(fs::is_regular_file(path), "ember-vocoder: cannot read '", path, "' (no such file)");
    auto [wave, sr] = audio::load(path);
    Tensor mono = wave.to(kFloat32).mean({0});
    if (sr != rate) mono = audio::functional::resample(mono, sr, rate);
    const int64_t hop = ckpt.features.hop_length();
    EMBER_CHECK(mono.size(0) >= 2 * hop, "ember-vocoder: '", path, "' is too short to vocode (", mono.size(0),
                " samples at ", rate, " Hz; at least ", 2 * hop, ")");
    waves.push_back(mono.clamp(-1.0, 1.0).contiguous());
  }
  const std::vector<Tensor> generated = vocode(net, features, waves, seed, temperature);
  const fs::path dir = fs::path(out) / "vocoded";
  fs::create_directories(dir);
  std::vector<VocodedFile> results;
  for (size_t i = 0; i < inputs.size(); ++i) {
    VocodedFile r;
    r.input = inputs[i];
    r.output = (dir / (fs::path(inputs[i]).stem().string() + ".wav")).string();
    write_wav(r.output, generated[i], rate);
    r.distance = features.log_mel_distance(generated[i], waves[i]);
    std::printf("%s -> %s (%.2f s at %lld Hz, log-mel L1 distance %.4f)\n", r.input.c_str(), r.output.c_str(),
                static_cast<double>(waves[i].size(0)) / static_cast<double>(rate), static_cast<long long>(rate),
                r.distance);
    results.push_back(r);
  }
  return results;
}

}  // namespace ember::apps::vocoder
