#pragma once
// Loading one mixture and its sources (LibriMix and the wsj0-mix recipe).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ember/datasets/speech/librimix.h>

namespace ember::datasets::speech_detail {

// Each file must exist, have `sample_rate`, and each source the mixture's
// shape; errors name the dataset and the file.
SourceSeparationSample load_mixture(std::string_view dataset, const std::string& mixture,
                                    const std::vector<std::string>& sources, int64_t sample_rate);

}  // namespace ember::datasets::speech_detail
