#pragma once
// Helpers shared by the speech dataset readers (torchaudio.datasets): the
// globs torchaudio's walkers use, Python's int() of ids, the first-line and
// csv readings of its text files, and audio loading with the checks of
// torchaudio.datasets.utils._load_waveform.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::datasets::speech_detail {

// pathlib's Path(base).glob("*/.../*<suffix>") with `depth` levels of folders
// before the file: the paths (base/a/b/file) of the regular files whose name
// ends with `suffix`. Order unspecified (the callers sort, as torchaudio).
// A missing base gives no paths.
std::vector<std::string> glob_files(const std::string& base, int depth, std::string_view suffix);

// Path(p).name and Path(p).stem (the name without its last ".suffix").
std::string file_name(std::string_view path);
std::string file_stem(std::string_view path);

// Python's str.split(sep) (every occurrence; sep non-empty).
std::vector<std::string> split(std::string_view s, std::string_view sep);

// Python's int() of a decimal id ("0042" is 42): surrounding whitespace, a
// sign, then digits. Anything else raises "<dataset>: <what> \"<s>\" is not an
// integer (<where>)".
int64_t parse_id(std::string_view s, std::string_view dataset, std::string_view what,
                 std::string_view where);

// The whole file as text.
std::string read_text(const std::string& path, std::string_view dataset);

// Python's open(path).readline() in text mode: the first line with its "\n"
// (universal newlines: "\r\n" and "\r" read as "\n"); "" for an empty file.
std::string first_line(const std::string& path, std::string_view dataset);

// The records of Python's csv.reader over `text` (a file opened with
// newline=""): quoting as csv.QUOTE_MINIMAL with quotechar '"' and
// doublequote (a field that starts with '"' runs to the closing quote; inside
// it "" is a quote and newlines are kept), or no quoting at all (csv.QUOTE_NONE:
// quotes are ordinary characters). "\r\n", "\n" and "\r" end a record; an
// empty line is an empty record. Each record keeps the 1-based line it starts
// on. A quoted field still open at the end raises naming `path` and its line.
struct CsvRecord {
  std::vector<std::string> fields;
  int64_t line = 0;
};
std::vector<CsvRecord> read_csv(std::string_view text, char delimiter, bool quoting,
                                const std::string& path, std::string_view dataset);

// Loads `path` as torchaudio.load (float32 in [-1, 1], [channels, frames]).
// A missing file raises "<dataset>: <path> is missing (<listed_in>)" before
// decoding; expected_rate > 0 checks the rate as _load_waveform does.
struct LoadedAudio {
  Tensor waveform;
  int64_t sample_rate = 0;
};
LoadedAudio load_audio(const std::string& path, std::string_view dataset,
                       std::string_view listed_in, int64_t expected_rate = 0);

// "root/a", as os.path.join.
std::string join(const std::string& a, const std::string& b);

}  // namespace ember::datasets::speech_detail
