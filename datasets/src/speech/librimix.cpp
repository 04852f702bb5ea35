#include "ember/datasets/speech/librimix.h"

#include <algorithm>

#include <ember/core/error.h>

#include "../format_util.h"
#include "mix_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "LibriMix";

std::string mixture_folder(const std::string& task) {
  if (task == "sep_clean") return "mix_clean";
  if (task == "enh_single") return "mix_single";
  if (task == "enh_both" || task == "sep_noisy") return "mix_both";
  EMBER_FAIL(kName, ": task \"", task, "\" is not one of sep_clean, sep_noisy, enh_single, enh_both");
}
}  // namespace

LibriMix::LibriMix(const std::string& root, LibriMixOptions options) : sample_rate_(options.sample_rate) {
  EMBER_CHECK(options.num_speakers >= 1, kName, ": num_speakers must be positive, got ", options.num_speakers);
  EMBER_CHECK(options.mode == "min" || options.mode == "max", kName, ": mode must be \"min\" or \"max\", got \"",
              options.mode, "\"");
  EMBER_CHECK(sample_rate_ == 8000 || sample_rate_ == 16000, kName, ": sample_rate must be 8000 or 16000, got ",
              sample_rate_);
  const std::string mixture = mixture_folder(options.task);
  root_ = speech_detail::join(root, "Libri" + std::to_string(options.num_speakers) + "Mix");
  const std::string split = std::string(sample_rate_ == 8000 ? "wav8k" : "wav16k") + "/" + options.mode + "/" +
                            options.subset;
  mix_dir_ = split + "/" + mixture;
  if (options.task == "enh_both") {
    src_dirs_.push_back(split + "/mix_clean");
  } else {
    for (int64_t i = 1; i <= options.num_speakers; ++i) src_dirs_.push_back(split + "/s" + std::to_string(i));
  }
  const std::string mix_path = speech_detail::join(root_, mix_dir_);
  EMBER_CHECK(detail::is_directory(mix_path), kName, ": dataset not found: expected ", mix_path,
              "/<id>.wav with the sources in ", speech_detail::join(root_, src_dirs_[0]),
              src_dirs_.size() > 1 ? "..." + src_dirs_.back().substr(src_dirs_.back().rfind('/')) : std::string(),
              " (missing: ", mix_path, ")");
  for (const std::string& p : speech_detail::glob_files(mix_path, 0, ".wav"))
    files_.push_back(speech_detail::file_name(p));
  std::sort(files_.begin(), files_.end());
}

LibriMixMetadata LibriMix::metadata(int64_t index) const {
  detail::check_index(kName, index, size());
  const std::string& name = files_[static_cast<size_t>(index)];
  LibriMixMetadata m;
  m.sample_rate = sample_rate_;
  m.mixture_path = mix_dir_ + "/" + name;
  for (const auto& dir : src_dirs_) m.source_paths.push_back(dir + "/" + name);
  return m;
}

SourceSeparationSample LibriMix::get(int64_t index) {
  LibriMixMetadata m = metadata(index);
  std::vector<std::string> sources;
  for (const auto& p : m.source_paths) sources.push_back(speech_detail::join(root_, p));
  return speech_detail::load_mixture(kName, speech_detail::join(root_, m.mixture_path), sources,
                                     sample_rate_);
}

}  // namespace ember::datasets
