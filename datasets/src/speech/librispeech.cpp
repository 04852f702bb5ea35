#include "ember/datasets/speech/librispeech.h"

#include <algorithm>

#include <ember/core/error.h>

#include "../format_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "LIBRISPEECH";
const std::vector<std::string> kSubsets = {"dev-clean",       "dev-other",       "test-clean",
                                           "test-other",      "train-clean-100", "train-clean-360",
                                           "train-other-500"};
}  // namespace

LIBRISPEECH::LIBRISPEECH(const std::string& root, LibriSpeechOptions options)
    : archive_(speech_detail::join(root, options.folder_in_archive)), url_(options.url) {
  if (std::find(kSubsets.begin(), kSubsets.end(), url_) == kSubsets.end()) {
    std::string allowed;
    for (const auto& s : kSubsets) allowed += (allowed.empty() ? "" : ", ") + s;
    EMBER_FAIL(kName, ": invalid url \"", url_, "\"; expected one of ", allowed);
  }
  const std::string path = speech_detail::join(archive_, url_);
  EMBER_CHECK(detail::is_directory(path), kName, ": dataset not found: expected ", path,
              "/<speaker>/<chapter>/<speaker>-<chapter>-<utterance>.flac with "
              "<speaker>-<chapter>.trans.txt beside them (missing: ",
              path, ")");
  for (const std::string& p : speech_detail::glob_files(path, 2, ".flac"))
    walker_.push_back(speech_detail::file_stem(p));
  std::sort(walker_.begin(), walker_.end());
}

LibriSpeechMetadata LIBRISPEECH::metadata(int64_t index) const {
  detail::check_index(kName, index, size());
  const std::string& fileid = walker_[static_cast<size_t>(index)];
  const std::vector<std::string> parts = speech_detail::split(fileid, "-");
  EMBER_CHECK(parts.size() == 3, kName, ": file name \"", fileid,
              ".flac\" is not <speaker>-<chapter>-<utterance>.flac");
  const std::string& speaker = parts[0];
  const std::string& chapter = parts[1];
  const std::string dir = url_ + "/" + speaker + "/" + chapter;
  LibriSpeechMetadata m;
  m.path = dir + "/" + fileid + ".flac";
  m.sample_rate = kSampleRate;
  const std::string txt = speech_detail::join(archive_, dir + "/" + speaker + "-" + chapter + ".trans.txt");
  EMBER_CHECK(detail::is_regular_file(txt), kName, ": transcript file ", txt, " of ", fileid,
              ".flac is missing");
  const std::string text = speech_detail::read_text(txt, kName);
  // As torchaudio: line.strip().split(" ", 1), up to the line of this id.
  std::string_view rest(text);
  int64_t line_no = 0;
  bool found = false;
  while (!rest.empty() && !found) {
    const size_t nl = rest.find('\n');
    const std::string line = detail::strip(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    ++line_no;
    const size_t space = line.find(' ');
    EMBER_CHECK(space != std::string::npos, kName, ": ", txt, " line ", line_no,
                ": expected \"<speaker>-<chapter>-<utterance> TRANSCRIPT\", got \"", line, "\"");
    if (line.compare(0, space, fileid) == 0 && space == fileid.size()) {
      m.transcript = line.substr(space + 1);
      found = true;
    }
  }
  EMBER_CHECK(found, kName, ": transcript not found for ", fileid, " in ", txt);
  const std::string where = m.path;
  m.speaker_id = speech_detail::parse_id(speaker, kName, "speaker id", where);
  m.chapter_id = speech_detail::parse_id(chapter, kName, "chapter id", where);
  m.utterance_id = speech_detail::parse_id(parts[2], kName, "utterance id", where);
  return m;
}

LibriSpeechSample LIBRISPEECH::get(int64_t index) {
  LibriSpeechMetadata m = metadata(index);
  auto audio = speech_detail::load_audio(speech_detail::join(archive_, m.path), kName,
                                         "found by the dataset's glob", m.sample_rate);
  return {std::move(audio.waveform), m.sample_rate, std::move(m.transcript),
          m.speaker_id, m.chapter_id, m.utterance_id};
}

}  // namespace ember::datasets
