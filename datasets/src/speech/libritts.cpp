#include "ember/datasets/speech/libritts.h"

#include <algorithm>

#include <ember/core/error.h>

#include "../format_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "LIBRITTS";
}  // namespace

LIBRITTS::LIBRITTS(const std::string& root, LibriTTSOptions options) {
  // torchaudio: os.path.basename(url).split(".")[0].
  const std::string basename = speech_detail::split(speech_detail::file_name(options.url), ".")[0];
  path_ = speech_detail::join(speech_detail::join(root, options.folder_in_archive), basename);
  EMBER_CHECK(detail::is_directory(path_), kName, ": dataset not found: expected ", path_,
              "/<speaker>/<chapter>/<speaker>_<chapter>_<segment>_<utterance>.wav with "
              ".original.txt and .normalized.txt beside each (missing: ",
              path_, ")");
  for (const std::string& p : speech_detail::glob_files(path_, 2, ".wav"))
    walker_.push_back(speech_detail::file_stem(p));
  std::sort(walker_.begin(), walker_.end());
}

LibriTTSSample LIBRITTS::get(int64_t index) {
  detail::check_index(kName, index, size());
  const std::string& fileid = walker_[static_cast<size_t>(index)];
  const std::vector<std::string> parts = speech_detail::split(fileid, "_");
  EMBER_CHECK(parts.size() == 4, kName, ": file name \"", fileid,
              ".wav\" is not <speaker>_<chapter>_<segment>_<utterance>.wav");
  const std::string dir = speech_detail::join(path_, parts[0] + "/" + parts[1]);
  const std::string base = speech_detail::join(dir, fileid);
  LibriTTSSample s;
  auto audio = speech_detail::load_audio(base + ".wav", kName, "found by the dataset's glob");
  s.waveform = std::move(audio.waveform);
  s.sample_rate = audio.sample_rate;
  for (const auto& [ext, dst] : {std::pair{".original.txt", &s.original_text},
                                 std::pair{".normalized.txt", &s.normalized_text}}) {
    const std::string txt = base + ext;
    EMBER_CHECK(detail::is_regular_file(txt), kName, ": text file ", txt, " of ", fileid,
                ".wav is missing");
    *dst = speech_detail::first_line(txt, kName);
  }
  s.speaker_id = speech_detail::parse_id(parts[0], kName, "speaker id", base + ".wav");
  s.chapter_id = speech_detail::parse_id(parts[1], kName, "chapter id", base + ".wav");
  s.utterance_id = fileid;
  return s;
}

}  // namespace ember::datasets
