#include "ember/datasets/speech/yesno.h"

#include <algorithm>

#include <ember/core/error.h>

#include "../format_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "YESNO";
}  // namespace

YESNO::YESNO(const std::string& root, YesNoOptions options)
    : path_(speech_detail::join(root, options.folder_in_archive)) {
  EMBER_CHECK(detail::is_directory(path_), kName, ": dataset not found: expected ", path_,
              "/<0|1>_<0|1>_..._<0|1>.wav (missing: ", path_, ")");
  for (const std::string& p : speech_detail::glob_files(path_, 0, ".wav"))
    walker_.push_back(speech_detail::file_stem(p));
  std::sort(walker_.begin(), walker_.end());
}

YesNoSample YESNO::get(int64_t index) {
  detail::check_index(kName, index, size());
  const std::string& fileid = walker_[static_cast<size_t>(index)];
  const std::string path = speech_detail::join(path_, fileid + ".wav");
  YesNoSample s;
  for (const std::string& label : speech_detail::split(fileid, "_"))
    s.labels.push_back(speech_detail::parse_id(label, kName, "label", path));
  auto audio = speech_detail::load_audio(path, kName, "found by the dataset's glob");
  s.waveform = std::move(audio.waveform);
  s.sample_rate = audio.sample_rate;
  return s;
}

}  // namespace ember::datasets
