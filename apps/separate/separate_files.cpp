#include "separate_files.h"

#include <filesystem>

#include <ember/audio/functional/resample.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/io/audio.h>

#include "separate_checkpoint.h"

namespace ember::apps::separate_app {

namespace fs = std::filesystem;

Tensor match_mixture_scale(const Tensor& estimate, const Tensor& mixture) {
  // Note [Output scale] (separate_files.h).
  const Tensor sum = estimate.sum(-2, /*keepdim=*/true);
  const Tensor alpha = (sum * mixture).sum(-1, true) / ((sum * sum).sum(-1, true) + 1e-12);
  return estimate * alpha;
}

Tensor separate_mixture(models::ConvTasNetImpl& model, const Tensor& mixture) {
  EMBER_CHECK(mixture.dim() == 2 && mixture.size(0) == 1, "ember-separate: expected a mono mixture [1, frames], got ",
              mixture.sizes());
  model.eval();
  InferenceMode guard;
  const Tensor input = mixture.unsqueeze(0);  // [1, 1, frames]
  return match_mixture_scale(model.forward(input), input).squeeze(0);
}

std::vector<std::string> write_sources(const std::string& dir, const std::string& name, const Tensor& sources,
                                       int64_t sample_rate) {
  EMBER_CHECK(sources.dim() == 2, "ember-separate: expected sources [num_sources, frames], got ", sources.sizes());
  fs::create_directories(dir);
  std::vector<std::string> paths;
  for (int64_t s = 0; s < sources.size(0); ++s) {
    const std::string path = (fs::path(dir) / (name + "_s" + std::to_string(s + 1) + ".wav")).string();
    audio::save(path, sources.slice(0, s, s + 1).clamp(-1.0, 1.0).contiguous(), sample_rate, /*channels_first=*/true,
                "wav", "PCM_S", 16);
    paths.push_back(path);
  }
  return paths;
}

std::vector<std::string> separate_files(const std::string& checkpoint, const std::vector<std::string>& files,
                                        const std::string& out_dir, std::ostream& log) {
  EMBER_CHECK(!files.empty(), "ember-separate: --separate needs at least one MIX file after the checkpoint");
  const SeparateCheckpoint c = load_separate_checkpoint(checkpoint);
  models::ConvTasNet model = model_from_checkpoint(c);
  const int64_t rate = c.state.sample_rate;
  std::vector<std::string> written;
  for (const std::string& file : files) {
    EMBER_CHECK(fs::is_regular_file(file), "ember-separate: cannot read '", file, "' (no such file)");
    auto [wave, file_rate] = audio::load(file);
    EMBER_CHECK(wave.size(0) == 1, "ember-separate: '", file, "' has ", wave.size(0),
                " channels; the model separates mono mixtures");
    EMBER_CHECK(wave.size(1) > 0, "ember-separate: '", file, "' has no samples");
    if (file_rate != rate) wave = audio::functional::resample(wave, file_rate, rate);
    const Tensor sources = separate_mixture(*model, wave);
    const std::string name = fs::path(file).stem().string();
    const auto paths = write_sources(out_dir, name, sources, rate);
    log << file << ": " << wave.size(1) << " samples at " << rate << " Hz"
        << (file_rate != rate ? " (resampled from " + std::to_string(file_rate) + " Hz)" : std::string()) << " ->";
    for (const auto& p : paths) log << ' ' << p;
    log << '\n';
    written.insert(written.end(), paths.begin(), paths.end());
  }
  return written;
}

}  // namespace ember::apps::separate_app
