#include "ember/datasets/speech/vctk.h"

#include <dirent.h>

#include <algorithm>
#include <cstring>

#include <ember/core/error.h>

#include "../format_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "VCTK_092";

std::vector<std::string> sorted_entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  EMBER_CHECK(d, kName, ": cannot list ", dir);
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

VCTK_092::VCTK_092(const std::string& root, VCTKOptions options) : options_(std::move(options)) {
  EMBER_CHECK(options_.mic_id == "mic1" || options_.mic_id == "mic2", kName, ": mic_id must be \"mic1\" or \"mic2\", got \"",
              options_.mic_id, "\"");
  const std::string path = speech_detail::join(root, "VCTK-Corpus-0.92");
  txt_dir_ = speech_detail::join(path, "txt");
  audio_dir_ = speech_detail::join(path, "wav48_silence_trimmed");
  EMBER_CHECK(detail::is_directory(txt_dir_), kName, ": dataset not found: expected ", txt_dir_,
              "/<speaker>/<speaker>_<utterance>.txt and ", audio_dir_, "/<speaker>/<speaker>_<utterance>_",
              options_.mic_id, options_.audio_ext, " (missing: ", txt_dir_, ")");
  for (const std::string& speaker : sorted_entries(txt_dir_)) {
    if (speaker == "p280" && options_.mic_id == "mic2") continue;
    const std::string utterance_dir = speech_detail::join(txt_dir_, speaker);
    EMBER_CHECK(detail::is_directory(utterance_dir), kName, ": ", utterance_dir,
                " is not a folder (", txt_dir_, " holds one folder per speaker)");
    for (const std::string& file : sorted_entries(utterance_dir)) {
      if (file.size() < 4 || file.compare(file.size() - 4, 4, ".txt") != 0) continue;
      const std::string utterance = file.substr(0, file.size() - 4);
      const std::string audio = speech_detail::join(
          speech_detail::join(audio_dir_, speaker), utterance + "_" + options_.mic_id + options_.audio_ext);
      if (speaker == "p362" && !detail::is_regular_file(audio)) continue;
      const std::vector<std::string> parts = speech_detail::split(utterance, "_");
      EMBER_CHECK(parts.size() == 2, kName, ": ", speech_detail::join(utterance_dir, file),
                  ": the name is not <speaker>_<utterance>.txt");
      sample_ids_.emplace_back(parts[0], parts[1]);
    }
  }
}

VCTKSample VCTK_092::get(int64_t index) {
  detail::check_index(kName, index, size());
  const auto& [speaker, utterance] = sample_ids_[static_cast<size_t>(index)];
  const std::string stem = speaker + "_" + utterance;
  const std::string txt = speech_detail::join(speech_detail::join(txt_dir_, speaker), stem + ".txt");
  const std::string audio_path = speech_detail::join(speech_detail::join(audio_dir_, speaker),
                                                     stem + "_" + options_.mic_id + options_.audio_ext);
  VCTKSample s;
  EMBER_CHECK(detail::is_regular_file(txt), kName, ": transcript file ", txt, " is missing");
  s.transcript = speech_detail::first_line(txt, kName);
  EMBER_CHECK(!s.transcript.empty(), kName, ": transcript file ", txt, " is empty");
  auto audio = speech_detail::load_audio(audio_path, kName, "the audio of " + txt);
  s.waveform = std::move(audio.waveform);
  s.sample_rate = audio.sample_rate;
  s.speaker_id = speaker;
  s.utterance_id = utterance;
  return s;
}

}  // namespace ember::datasets
