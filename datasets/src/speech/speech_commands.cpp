#include "ember/datasets/speech/speech_commands.h"

#include <algorithm>
#include <set>

#include <ember/core/error.h>

#include "../format_util.h"
#include "speech_util.h"

namespace ember::datasets {

namespace {
constexpr const char* kName = "SPEECHCOMMANDS";
constexpr std::string_view kHashDivider = "_nohash_";
constexpr std::string_view kExceptFolder = "_background_noise_";

// os.path.normpath of a path relative to the dataset folder.
std::string normpath(std::string_view rel) {
  std::vector<std::string> parts;
  for (std::string& p : speech_detail::split(rel, "/")) {
    if (p.empty() || p == ".") continue;
    if (p == ".." && !parts.empty() && parts.back() != "..") {
      parts.pop_back();
    } else {
      parts.push_back(std::move(p));
    }
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out.empty() ? "." : out;
}

// The entries of a list file as normalized relative paths and where each is
// listed. Blank lines are skipped (torchaudio would turn one into the
// dataset folder itself).
void load_list(const std::string& path_dir, const std::string& file,
               std::vector<std::string>& out, std::vector<std::string>* where) {
  const std::string list = speech_detail::join(path_dir, file);
  EMBER_CHECK(detail::is_regular_file(list), kName, ": ", list,
              " is missing (the validation and testing subsets, and the training subset that "
              "excludes them, need validation_list.txt and testing_list.txt)");
  const std::string text = speech_detail::read_text(list, kName);
  int64_t line_no = 0;
  for (const std::string& line : speech_detail::split(text, "\n")) {
    ++line_no;
    const std::string entry = detail::strip(line);
    if (entry.empty()) continue;
    out.push_back(normpath(entry));
    if (where) where->push_back(list + " line " + std::to_string(line_no));
  }
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

SPEECHCOMMANDS::SPEECHCOMMANDS(const std::string& root, SpeechCommandsOptions options) {
  const std::string& subset = options.subset;
  EMBER_CHECK(subset.empty() || subset == "training" || subset == "validation" || subset == "testing",
              kName, ": subset \"", subset,
              "\" is not one of \"\" (all), \"training\", \"validation\", \"testing\"");
  std::string url = options.url;
  if (url == "speech_commands_v0.01" || url == "speech_commands_v0.02") url += ".tar.gz";
  // torchaudio: os.path.basename(url).rsplit(".", 2)[0].
  std::string version = speech_detail::file_name(url);
  for (int k = 0; k < 2; ++k) {
    const size_t dot = version.rfind('.');
    if (dot == std::string::npos) break;
    version.resize(dot);
  }
  archive_ = speech_detail::join(root, options.folder_in_archive);
  path_ = speech_detail::join(archive_, version);
  EMBER_CHECK(detail::is_directory(path_), kName, ": dataset not found: expected ", path_,
              "/<label>/<speaker>_nohash_<n>.wav with validation_list.txt and testing_list.txt "
              "(missing: ",
              path_, ")");
  if (subset == "validation" || subset == "testing") {
    load_list(path_, subset + "_list.txt", walker_, &listed_in_);
    return;
  }
  std::set<std::string> excludes;
  if (subset == "training") {
    std::vector<std::string> listed;
    load_list(path_, "validation_list.txt", listed, nullptr);
    load_list(path_, "testing_list.txt", listed, nullptr);
    excludes.insert(listed.begin(), listed.end());
  }
  const size_t prefix = path_.size() + (path_.back() == '/' ? 0 : 1);
  for (const std::string& p : speech_detail::glob_files(path_, 1, ".wav")) {
    std::string rel = p.substr(prefix);
    // torchaudio tests the whole path string for the divider and the folder.
    if (!contains(p, kHashDivider) || contains(p, kExceptFolder) || excludes.count(rel)) continue;
    walker_.push_back(std::move(rel));
  }
  // torchaudio sorts the full paths; they share the prefix.
  std::sort(walker_.begin(), walker_.end());
}

SpeechCommandsMetadata SPEECHCOMMANDS::metadata(int64_t index) const {
  detail::check_index(kName, index, size());
  const std::string& rel = walker_[static_cast<size_t>(index)];
  SpeechCommandsMetadata m;
  m.path = normpath(speech_detail::file_name(path_) + "/" + rel);
  m.sample_rate = kSampleRate;
  const size_t slash = rel.rfind('/');
  const std::string reldir = slash == std::string::npos ? "" : rel.substr(0, slash);
  m.label = speech_detail::file_name(reldir);
  // Two splitexts, as torchaudio ("x_nohash_0.wav" -> "x_nohash_0").
  std::string speaker = speech_detail::file_stem(speech_detail::file_stem(rel));
  const std::vector<std::string> parts = speech_detail::split(speaker, kHashDivider);
  EMBER_CHECK(parts.size() == 2, kName, ": file name \"", speech_detail::file_name(rel),
              "\" is not <speaker>_nohash_<n>.wav",
              listed_in_.empty() ? std::string() : " (listed in " + listed_in_[static_cast<size_t>(index)] + ")");
  m.speaker_id = parts[0];
  m.utterance_number = speech_detail::parse_id(parts[1], kName, "utterance number", m.path);
  return m;
}

SpeechCommandsSample SPEECHCOMMANDS::get(int64_t index) {
  SpeechCommandsMetadata m = metadata(index);
  const std::string listed = listed_in_.empty() ? std::string("found by the dataset's glob")
                                                : "listed in " + listed_in_[static_cast<size_t>(index)];
  auto audio = speech_detail::load_audio(speech_detail::join(archive_, m.path), kName, listed,
                                         m.sample_rate);
  return {std::move(audio.waveform), m.sample_rate, std::move(m.label), std::move(m.speaker_id),
          m.utterance_number};
}

}  // namespace ember::datasets
