#include "ember/datasets/speech/ljspeech.h"

#include <ember/core/error.h>

#include "../format_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "LJSPEECH";
}  // namespace

LJSPEECH::LJSPEECH(const std::string& root, LJSpeechOptions options) {
  std::string basename = speech_detail::file_name(options.url);
  basename = basename.substr(0, basename.find(".tar.bz2"));
  const std::string corpus = speech_detail::join(root, basename);
  wavs_ = speech_detail::join(corpus, options.folder_in_archive);
  metadata_path_ = speech_detail::join(corpus, "metadata.csv");
  EMBER_CHECK(detail::is_directory(wavs_) && detail::is_regular_file(metadata_path_), kName,
              ": dataset not found: expected ", metadata_path_,
              " (<id>|<transcript>|<normalized transcript> lines) and ", wavs_,
              "/<id>.wav (missing: ", detail::is_directory(wavs_) ? metadata_path_ : wavs_, ")");
  const std::string text = speech_detail::read_text(metadata_path_, kName);
  for (auto& record : speech_detail::read_csv(text, '|', /*quoting=*/false, metadata_path_, kName)) {
    EMBER_CHECK(record.fields.size() == 3, kName, ": ", metadata_path_, " line ", record.line,
                ": expected 3 '|'-separated fields (id, transcript, normalized transcript), got ",
                record.fields.size());
    rows_.push_back({std::move(record.fields[0]), std::move(record.fields[1]),
                     std::move(record.fields[2])});
    lines_.push_back(record.line);
  }
}

const LJSpeechRow& LJSPEECH::row(int64_t index) const {
  detail::check_index(kName, index, size());
  return rows_[static_cast<size_t>(index)];
}

LJSpeechSample LJSPEECH::get(int64_t index) {
  const LJSpeechRow& r = row(index);
  auto audio = speech_detail::load_audio(
      speech_detail::join(wavs_, r.file_id + ".wav"), kName,
      "listed in " + metadata_path_ + " line " + std::to_string(lines_[static_cast<size_t>(index)]));
  return {std::move(audio.waveform), audio.sample_rate, r.transcript, r.normalized_transcript};
}

}  // namespace ember::datasets
