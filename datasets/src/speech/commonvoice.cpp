#include "ember/datasets/speech/commonvoice.h"

#include <ember/core/error.h>

#include "../format_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "COMMONVOICE";
}  // namespace

COMMONVOICE::COMMONVOICE(const std::string& root, CommonVoiceOptions options)
    : root_(root), tsv_path_(speech_detail::join(root, options.tsv)) {
  EMBER_CHECK(detail::is_regular_file(tsv_path_), kName, ": dataset not found: expected ", tsv_path_,
              " (a header row with \"path\" in its second column, then one row per clip) and the "
              "clips in ",
              speech_detail::join(root, "clips"), "/ (missing: ", tsv_path_, ")");
  std::string text = speech_detail::read_text(tsv_path_, kName);
  // The file is opened in text mode (universal newlines) and handed to csv.
  std::string unified;
  unified.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      unified += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      unified += text[i];
    }
  }
  auto records = speech_detail::read_csv(unified, '\t', /*quoting=*/true, tsv_path_, kName);
  EMBER_CHECK(!records.empty(), kName, ": ", tsv_path_, " is empty (expected a header row)");
  header_ = std::move(records[0].fields);
  EMBER_CHECK(header_.size() >= 2 && header_[1] == "path", kName, ": ", tsv_path_,
              " line 1: expected the header's second column to be \"path\", got \"",
              header_.size() >= 2 ? header_[1] : std::string(), "\"");
  for (size_t r = 1; r < records.size(); ++r) {
    EMBER_CHECK(records[r].fields.size() == header_.size(), kName, ": ", tsv_path_, " line ",
                records[r].line, ": ", records[r].fields.size(), " tab-separated fields, the header has ",
                header_.size());
    rows_.push_back(std::move(records[r].fields));
    lines_.push_back(records[r].line);
  }
}

std::string COMMONVOICE::clip_path(int64_t index) const {
  detail::check_index(kName, index, size());
  std::string path = speech_detail::join(speech_detail::join(root_, "clips"),
                                         rows_[static_cast<size_t>(index)][1]);
  if (path.size() < 4 || path.compare(path.size() - 4, 4, ".mp3") != 0) path += ".mp3";
  return path;
}

std::map<std::string, std::string> COMMONVOICE::metadata(int64_t index) const {
  detail::check_index(kName, index, size());
  const auto& row = rows_[static_cast<size_t>(index)];
  std::map<std::string, std::string> m;
  // dict(zip(header, line)): a repeated column name keeps its last value.
  for (size_t c = 0; c < header_.size(); ++c) m[header_[c]] = row[c];
  return m;
}

CommonVoiceSample COMMONVOICE::get(int64_t index) {
  const std::string path = clip_path(index);
  auto audio = speech_detail::load_audio(
      path, kName,
      "listed in " + tsv_path_ + " line " + std::to_string(lines_[static_cast<size_t>(index)]));
  return {std::move(audio.waveform), audio.sample_rate, metadata(index)};
}

}  // namespace ember::datasets
