#include "mix_util.h"

#include <ember/core/error.h>

#include "speech_util.h"

namespace ember::datasets::speech_detail {

SourceSeparationSample load_mixture(std::string_view dataset, const std::string& mixture,
                                    const std::vector<std::string>& sources, int64_t sample_rate) {
  SourceSeparationSample s;
  s.sample_rate = sample_rate;
  s.mixture = load_audio(mixture, dataset, "a mixture", sample_rate).waveform;
  for (size_t i = 0; i < sources.size(); ++i) {
    Tensor src = load_audio(sources[i], dataset, "source " + std::to_string(i + 1) + " of " + mixture,
                            sample_rate)
                     .waveform;
    EMBER_CHECK(src.sizes() == s.mixture.sizes(), dataset, ": different waveform shapes: mixture ", mixture,
                " is ", s.mixture.sizes(), ", source ", sources[i], " is ", src.sizes());
    s.sources.push_back(std::move(src));
  }
  return s;
}

}  // namespace ember::datasets::speech_detail
