#pragma once
// torchtext 0.14's text datasets, read from the layouts torchtext downloads
// and extracts (Ember never downloads). Each is an IterableDataset with a
// `split` argument; a DataLoader's workers share the records round-robin
// (record n goes to worker n % num_workers, torch's sharding_filter).
//
// A root is searched as `root/<files>`, `root/<Name>/<files>` and
// torchtext 0.14's own cache layout `root/datasets/<Name>/<files>`; when none
// exists the ember::Error names every path tried. Files that are not valid
// UTF-8, and AG_NEWS rows that are not valid CSV records, raise naming the file
// and the line.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/datasets/iterable_dataset.h"

namespace ember::text {

// (label, text) records of the classification datasets.
using LabeledText = std::pair<int64_t, std::string>;

// One text file read line by line. `line_fn` turns a raw line (without its
// "\n"; `terminated` says whether one followed it) into a record, or nullopt
// to skip the line. The base of the line-based datasets below.
class LineFileDataset : public datasets::IterableDataset<std::string> {
 public:
  std::unique_ptr<datasets::SampleIterator<std::string>> iter(const datasets::WorkerInfo& worker) override;
  const std::filesystem::path& path() const { return path_; }

 protected:
  LineFileDataset(std::string name, std::filesystem::path path) : name_(std::move(name)), path_(std::move(path)) {}
  virtual std::optional<std::string> record(std::string line, bool terminated) const = 0;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::filesystem::path path_;
};

// WikiText-2 (v1): `wikitext-2/wiki.{train,valid,test}.tokens`. Records are
// the raw lines with their "\n" kept (torchtext: readlines(strip_newline=False)),
// empty lines included.
class WikiText2 final : public LineFileDataset {
 public:
  explicit WikiText2(const std::filesystem::path& root, const std::string& split = "train");

 private:
  std::optional<std::string> record(std::string line, bool terminated) const override;
};

// WikiText-103 (v1): `wikitext-103/wiki.{train,valid,test}.tokens`, as WikiText2.
class WikiText103 final : public LineFileDataset {
 public:
  explicit WikiText103(const std::filesystem::path& root, const std::string& split = "train");

 private:
  std::optional<std::string> record(std::string line, bool terminated) const override;
};

// Penn Treebank (Mikolov's): `ptb.{train,valid,test}.txt`. Records are the
// lines stripped of leading and trailing whitespace (Python's str.strip()).
class PennTreebank final : public LineFileDataset {
 public:
  explicit PennTreebank(const std::filesystem::path& root, const std::string& split = "train");

 private:
  std::optional<std::string> record(std::string line, bool terminated) const override;
};

struct EnWik9Options {
  // Apply torchtext's filter_wikipedia_xml (fastText's wikifil.pl rules) to
  // each line, dropping the lines it empties and "#redirect" lines.
  bool clean = false;
};

// enwik9 (Matt Mahoney's first 10^9 bytes of an English Wikipedia dump): the
// raw file `enwik9`; records are its lines without "\n" (and a "\r" before it).
class EnWik9 final : public LineFileDataset {
 public:
  explicit EnWik9(const std::filesystem::path& root, EnWik9Options options = {});

 private:
  std::optional<std::string> record(std::string line, bool terminated) const override;
  EnWik9Options options_;
};

// torchtext.data.functional.filter_wikipedia_xml on one line (without "\n"):
// nullopt for lines containing "#redirect"/"#REDIRECT" or cleaned to nothing,
// else the cleaned line (lower-case letters and single spaces, digits spelled).
std::optional<std::string> filter_wikipedia_xml_line(std::string_view line);

// IMDB (Large Movie Review Dataset v1): `aclImdb/{train,test}/{neg,pos}/*.txt`.
// Records are (label, review) with torchtext's labels neg = 1, pos = 2; the
// review is the file's text without trailing line breaks. Order: neg then
// pos, each by file name (torchtext follows the tarball's order).
class IMDB final : public datasets::IterableDataset<LabeledText> {
 public:
  explicit IMDB(const std::filesystem::path& root, const std::string& split = "train");
  std::unique_ptr<datasets::SampleIterator<LabeledText>> iter(const datasets::WorkerInfo& worker) override;
  std::optional<int64_t> size() const override { return static_cast<int64_t>(files_.size()); }

 private:
  std::vector<std::pair<int64_t, std::filesystem::path>> files_;
};

// AG News (Zhang et al.'s CSV): `{train,test}.csv`, rows "label","title","description".
// Records are (label 1..4, the other fields joined by " "), parsed as Python's
// csv.reader with the default (excel) dialect: quoted fields may hold commas,
// doubled quotes and line breaks.
class AG_NEWS final : public datasets::IterableDataset<LabeledText> {
 public:
  explicit AG_NEWS(const std::filesystem::path& root, const std::string& split = "train");
  std::unique_ptr<datasets::SampleIterator<LabeledText>> iter(const datasets::WorkerInfo& worker) override;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Python's csv.reader (excel dialect, strict = False) over a whole text: the
// rows with the 1-based line each starts on. Raises naming `what` and the line
// when a quoted field is still open at the end of the text.
struct CsvRow {
  std::vector<std::string> fields;
  int64_t line = 0;
};
std::vector<CsvRow> parse_csv(std::string_view text, const std::string& what);

}  // namespace ember::text
