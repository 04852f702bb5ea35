#pragma once
// ember-vocoder --vocode: audio files -> their mel spectrograms -> WaveRNN ->
// OUT/vocoded/<name>.wav at the checkpoint's sample rate, with each result's
// log-mel L1 distance to its input printed.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::apps::vocoder {

struct VocodedFile {
  std::string input, output;
  double distance = 0;  // log-mel L1 to the input (resampled to the checkpoint's rate)
};

std::vector<VocodedFile> vocode_files(const std::string& checkpoint, const std::vector<std::string>& inputs,
                                      const std::string& out, uint64_t seed, int64_t threads = 0,
                                      double temperature = 1.0);

}  // namespace ember::apps::vocoder
