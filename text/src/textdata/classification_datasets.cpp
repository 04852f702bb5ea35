// IMDB (one review per file) and AG_NEWS (CSV rows).
#include <algorithm>

#include "dataset_files.h"
#include "ember/core/error.h"
#include "ember/text/text_datasets.h"
#include "ember/text/utf8.h"

namespace ember::text {

namespace fs = std::filesystem;

IMDB::IMDB(const fs::path& root, const std::string& split) {
  detail::check_split("IMDB", split, {"train", "test"});
  const fs::path folder = detail::find_dataset_path("IMDB", root, fs::path("aclImdb") / split, /*folder=*/true);
  // torchtext 0.14's MAP_LABELS.
  const std::pair<const char*, int64_t> labels[] = {{"neg", 1}, {"pos", 2}};
  for (const auto& [name, label] : labels) {
    const fs::path dir = folder / name;
    std::error_code ec;
    EMBER_CHECK(fs::is_directory(dir, ec), "IMDB: dataset not found: expected the folder ", dir.string(),
                " (layout aclImdb/{train,test}/{neg,pos}/*.txt)");
    std::vector<fs::path> paths;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code file_ec;
      if (it->is_regular_file(file_ec) && it->path().extension() == ".txt") paths.push_back(it->path());
    }
    EMBER_CHECK(!ec, "IMDB: cannot list ", dir.string(), ": ", ec.message());
    std::sort(paths.begin(), paths.end());
    for (auto& p : paths) files_.emplace_back(label, std::move(p));
  }
}

std::unique_ptr<datasets::SampleIterator<LabeledText>> IMDB::iter(const datasets::WorkerInfo& worker) {
  return datasets::make_iterator<LabeledText>([this, i = worker.id, step = worker.num_workers]() mutable
                                              -> std::optional<LabeledText> {
    if (i >= static_cast<int64_t>(files_.size())) return std::nullopt;
    const auto& [label, path] = files_[static_cast<size_t>(i)];
    i += step;
    std::string text = detail::read_file("IMDB", path);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    detail::check_utf8_text("IMDB", path, text);
    return LabeledText{label, std::move(text)};
  });
}

std::vector<CsvRow> parse_csv(std::string_view text, const std::string& what) {
  // Note [CSV as Python reads it]: torchtext opens the file in text mode, so
  // "\r\n" and "\r" arrive as "\n" (universal newlines); csv.reader with the
  // excel dialect then runs this state machine (Modules/_csv.c, strict off):
  // a quote opens a quoted field only at the start of a field, "" inside one
  // is a quote, text after a closing quote is appended to the field, and a
  // blank line is a row with no fields.
  enum class State { kStartRecord, kStartField, kInField, kInQuoted, kQuoteInQuoted };
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string field;
  State state = State::kStartRecord;
  int64_t line = 1;
  auto end_field = [&] { row.fields.push_back(std::move(field)); field.clear(); };
  auto end_record = [&] { rows.push_back(std::move(row)); row = CsvRow{}; };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      c = '\n';
    }
    switch (state) {
      case State::kStartRecord:
        row.line = line;
        if (c == '\n') {
          end_record();
          break;
        }
        [[fallthrough]];
      case State::kStartField:
        if (c == '\n') {
          end_field();
          end_record();
          state = State::kStartRecord;
        } else if (c == '"') {
          state = State::kInQuoted;
        } else if (c == ',') {
          end_field();
          state = State::kStartField;
        } else {
          field += c;
          state = State::kInField;
        }
        break;
      case State::kInField:
        if (c == '\n') {
          end_field();
          end_record();
          state = State::kStartRecord;
        } else if (c == ',') {
          end_field();
          state = State::kStartField;
        } else {
          field += c;
        }
        break;
      case State::kInQuoted:
        if (c == '"') {
          state = State::kQuoteInQuoted;
        } else {
          field += c;
        }
        break;
      case State::kQuoteInQuoted:
        if (c == '"') {
          field += '"';
          state = State::kInQuoted;
        } else if (c == ',') {
          end_field();
          state = State::kStartField;
        } else if (c == '\n') {
          end_field();
          end_record();
          state = State::kStartRecord;
        } else {
          field += c;
          state = State::kInField;
        }
        break;
    }
    if (c == '\n') ++line;
  }
  EMBER_CHECK(state != State::kInQuoted, what, " line ", row.line,
              ": unexpected end of data: a quoted field is not closed");
  if (state != State::kStartRecord) {
    end_field();
    end_record();
  }
  return rows;
}

AG_NEWS::AG_NEWS(const fs::path& root, const std::string& split) {
  detail::check_split("AG_NEWS", split, {"train", "test"});
  path_ = detail::find_dataset_path("AG_NEWS", root, split + ".csv");
}

std::unique_ptr<datasets::SampleIterator<LabeledText>> AG_NEWS::iter(const datasets::WorkerInfo& worker) {
  std::string text = detail::read_file("AG_NEWS", path_);
  // Validate the whole file first so that a bad byte is reported by line.
  detail::check_utf8_text("AG_NEWS", path_, text);
  auto rows = std::make_shared<std::vector<CsvRow>>(parse_csv(text, "AG_NEWS: " + path_.string()));
  return datasets::make_iterator<LabeledText>([this, rows, i = worker.id, step = worker.num_workers]() mutable
                                              -> std::optional<LabeledText> {
    if (i >= static_cast<int64_t>(rows->size())) return std::nullopt;
    CsvRow& row = (*rows)[static_cast<size_t>(i)];
    i += step;
    EMBER_CHECK(row.fields.size() >= 2, "AG_NEWS: ", path_.string(), " line ", row.line, ": expected a label and ",
                "text fields, got ", row.fields.size(), " field(s)");
    const std::string& label_text = row.fields[0];
    int64_t label = 0;
    const bool digits = label_text.size() == 1 && label_text[0] >= '1' && label_text[0] <= '4';
    EMBER_CHECK(digits, "AG_NEWS: ", path_.string(), " line ", row.line, ": label '", label_text,
                "' is not one of 1, 2, 3, 4");
    label = label_text[0] - '0';
    std::string joined = std::move(row.fields[1]);
    for (size_t f = 2; f < row.fields.size(); ++f) joined += " " + row.fields[f];
    return LabeledText{label, std::move(joined)};
  });
}

}  // namespace ember::text
