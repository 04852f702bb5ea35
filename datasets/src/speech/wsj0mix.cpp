#include "ember/datasets/speech/wsj0mix.h"

#include <algorithm>

#include <ember/core/error.h>

#include "../format_util.h"
#include "mix_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "WSJ0Mix";
}  // namespace

WSJ0Mix::WSJ0Mix(const std::string& root, WSJ0MixOptions options) : root_(root), options_(std::move(options)) {
  EMBER_CHECK(options_.num_speakers >= 1, kName, ": num_speakers must be positive, got ", options_.num_speakers);
  EMBER_CHECK(options_.sample_rate > 0, kName, ": sample_rate must be positive, got ", options_.sample_rate);
  const std::string mix_dir = speech_detail::join(root_, "mix");
  for (const std::string& p : speech_detail::glob_files(mix_dir, 0, options_.audio_ext))
    files_.push_back(speech_detail::file_name(p));
  std::sort(files_.begin(), files_.end());
  EMBER_CHECK(!files_.empty(), kName, ": no files found in ", mix_dir, ": expected ", mix_dir, "/<id>",
              options_.audio_ext, " and the sources in ", speech_detail::join(root_, "s1"), " ... s",
              options_.num_speakers);
}

SourceSeparationSample WSJ0Mix::get(int64_t index) {
  detail::check_index(kName, index, size());
  const std::string& name = files_[static_cast<size_t>(index)];
  std::vector<std::string> sources;
  for (int64_t i = 1; i <= options_.num_speakers; ++i) {
    std::string source = "s";  // (appending avoids GCC 12's false -Wrestrict on "s" + string)
    source += std::to_string(i);
    sources.push_back(speech_detail::join(speech_detail::join(root_, source), name));
  }
  return speech_detail::load_mixture(kName, speech_detail::join(root_, "mix/" + name), sources,
                                     options_.sample_rate);
}

}  // namespace ember::datasets
