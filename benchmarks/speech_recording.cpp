#include "speech_recording.h"

#include <cstdlib>
#include <filesystem>

#include "bench.h"
#include "ember/io/audio.h"

namespace ember_bench {

std::string speech_recording_path() {
  const char* root = std::getenv("EMBER_SHARED_DATA");
  const std::filesystem::path dir = root && *root ? root : std::string(EMBER_BENCH_SOURCE_DIR) + "/../../shared/data";
  const std::filesystem::path path = dir / "audio" / "codec2" / "speech_orig_16k.wav";
  if (!std::filesystem::exists(path))
    throw SkipWorkload("no speech recording at " + path.string() + " (set EMBER_SHARED_DATA)");
  return path.string();
}

ember::Tensor speech_recording(int64_t samples) {
  const ember::Tensor once = ember::audio::load(speech_recording_path()).waveform.select(0, 0).to(ember::kFloat32);
  const int64_t repeats = (samples + once.size(0) - 1) / once.size(0);
  return once.repeat({repeats}).slice(0, 0, samples).contiguous();
}

}  // namespace ember_bench
