#include "speech_util.h"

#include <dirent.h>

#include <cctype>
#include <cstring>
#include <limits>

#include <ember/core/error.h>
#include <ember/io/audio.h>

#include "../format_util.h"

namespace ember::datasets::speech_detail {

namespace {

// The entries of a folder, without "." and ".."; a missing or unreadable
// folder gives none (as pathlib's glob, which skips what it cannot list).
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(d);
  return names;
}

void glob_into(const std::string& dir, int depth, std::string_view suffix,
               std::vector<std::string>& out) {
  for (const std::string& name : list_dir(dir)) {
    const std::string path = detail::join_path(dir, name);
    if (depth > 0) {
      if (detail::is_directory(path)) glob_into(path, depth - 1, suffix, out);
    } else if (name.size() >= suffix.size() &&
               std::string_view(name).substr(name.size() - suffix.size()) == suffix &&
               detail::is_regular_file(path)) {
      out.push_back(path);
    }
  }
}

}  // namespace

std::vector<std::string> glob_files(const std::string& base, int depth, std::string_view suffix) {
  std::vector<std::string> out;
  glob_into(base, depth, suffix, out);
  return out;
}

std::string file_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string file_stem(std::string_view path) {
  const std::string name = file_name(path);
  const size_t dot = name.rfind('.');
  // pathlib: a leading dot is not a suffix (".hidden" has stem ".hidden").
  if (dot == std::string::npos || dot == 0) return name;
  return name.substr(0, dot);
}

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      parts.emplace_back(s.substr(start));
      return parts;
    }
    parts.emplace_back(s.substr(start, at - start));
    start = at + sep.size();
  }
}

int64_t parse_id(std::string_view s, std::string_view dataset, std::string_view what,
                 std::string_view where) {
  const std::string t = detail::strip(s);
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) negative = t[i++] == '-';
  bool ok = i < t.size();
  uint64_t v = 0;
  for (; ok && i < t.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    if (!std::isdigit(c) || v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - (c - '0')) / 10) {
      ok = false;
      break;
    }
    v = v * 10 + (c - '0');
  }
  EMBER_CHECK(ok, dataset, ": ", what, " \"", s, "\" is not an integer (", where, ")");
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

std::string read_text(const std::string& path, std::string_view dataset) {
  const std::vector<uint8_t> bytes = detail::read_whole_file(path, dataset);
  return std::string(bytes.begin(), bytes.end());
}

std::string first_line(const std::string& path, std::string_view dataset) {
  const std::string text = read_text(path, dataset);
  const size_t end = text.find_first_of("\r\n");
  if (end == std::string::npos) return text;
  return text.substr(0, end) + "\n";
}

std::vector<CsvRecord> read_csv(std::string_view text, char delimiter, bool quoting,
                                const std::string& path, std::string_view dataset) {
  // Note [csv.reader]: the states of CPython's Modules/_csv.c for the
  // dialects torchaudio uses (no escapechar, no skipinitialspace, not strict).
  // A quote only opens a quoted field at the start of a field; after the
  // closing quote, other characters join the field as they come.
  std::vector<CsvRecord> records;
  enum State { StartRecord, StartField, InField, InQuoted, QuoteInQuoted };
  State state = StartRecord;
  CsvRecord record;
  std::string field;
  int64_t line = 1;
  int64_t quote_line = 0;
  auto end_record = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
    records.push_back(std::move(record));
    record = CsvRecord{};
    state = StartRecord;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool newline = c == '\n' || c == '\r';
    if (newline && c == '\r' && i + 1 < text.size() && text[i + 1] == '\n' && state != InQuoted) ++i;
    if (state == StartRecord) {
      record.line = line;
      if (newline) {
        records.push_back(CsvRecord{{}, line});
        ++line;
        continue;
      }
      state = StartField;
    }
    switch (state) {
      case StartField:
        if (newline) {
          end_record();
        } else if (quoting && c == '"') {
          state = InQuoted;
          quote_line = line;
        } else if (c == delimiter) {
          record.fields.push_back(std::move(field));
          field.clear();
        } else {
          field += c;
          state = InField;
        }
        break;
      case InField:
        if (newline) {
          end_record();
        } else if (c == delimiter) {
          record.fields.push_back(std::move(field));
          field.clear();
          state = StartField;
        } else {
          field += c;
        }
        break;
      case InQuoted:
        if (c == '"') state = QuoteInQuoted;
        else field += c;
        break;
      case QuoteInQuoted:
        if (c == '"') {
          field += '"';
          state = InQuoted;
        } else if (c == delimiter) {
          record.fields.push_back(std::move(field));
          field.clear();
          state = StartField;
        } else if (newline) {
          end_record();
        } else {
          field += c;
          state = InField;
        }
        break;
      case StartRecord:
        break;
    }
    if (newline) ++line;
  }
  EMBER_CHECK(state != InQuoted, dataset, ": ", path, " line ", quote_line,
              ": a quoted field is not closed before the end of the file");
  if (state != StartRecord) end_record();
  return records;
}

LoadedAudio load_audio(const std::string& path, std::string_view dataset,
                       std::string_view listed_in, int64_t expected_rate) {
  EMBER_CHECK(detail::is_regular_file(path), dataset, ": audio file ", path, " is missing (",
              listed_in, ")");
  audio::Waveform w = audio::load(path);
  EMBER_CHECK(expected_rate <= 0 || w.sample_rate == expected_rate, dataset, ": ", path,
              " has sample rate ", w.sample_rate, ", expected ", expected_rate);
  return {std::move(w.waveform), w.sample_rate};
}

std::string join(const std::string& a, const std::string& b) { return detail::join_path(a, b); }

}  // namespace ember::datasets::speech_detail
