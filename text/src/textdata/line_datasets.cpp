// WikiText2/103, PennTreebank and EnWik9: one record per line of one file.
#include <fstream>

#include "dataset_files.h"
#include "ember/core/error.h"
#include "ember/text/text_datasets.h"

namespace ember::text {

namespace {

// Python's str.isspace() for one code point (what str.strip() removes).
bool python_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// The code point starting at s[i] of valid UTF-8 and its length.
std::pair<uint32_t, size_t> decode_at(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return {b, 1};
  const size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
  uint32_t c = b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return {c, n};
}

// Python's str.strip() on valid UTF-8.
std::string python_strip(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    auto [c, n] = decode_at(s, begin);
    if (!python_space(c)) break;
    begin += n;
  }
  size_t end = s.size();
  while (end > begin) {
    size_t start = end - 1;  // back to the lead byte of the last code point
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    if (!python_space(decode_at(s, start).first)) break;
    end = start;
  }
  return std::string(s.substr(begin, end - begin));
}

std::string wikitext_file(const std::string& split) { return "wiki." + split + ".tokens"; }

}  // namespace

std::unique_ptr<datasets::SampleIterator<std::string>> LineFileDataset::iter(const datasets::WorkerInfo& worker) {
  auto in = std::make_shared<std::ifstream>(path_, std::ios::binary);
  EMBER_CHECK(*in, name_, ": cannot open ", path_.string());
  // Records (not lines: EnWik9 may skip lines) are dealt round-robin to the workers.
  return datasets::make_iterator<std::string>(
      [this, in, line_number = int64_t{0}, record_number = int64_t{0}, worker]() mutable -> std::optional<std::string> {
        std::string line;
        while (std::getline(*in, line)) {
          ++line_number;
          const bool terminated = !in->eof();
          detail::check_utf8_at(name_, path_, line_number, line);
          std::optional<std::string> r = record(std::move(line), terminated);
          if (!r) continue;
          if (record_number++ % worker.num_workers != worker.id) continue;
          return r;
        }
        EMBER_CHECK(!in->bad(), name_, ": error reading ", path_.string(), " after line ", line_number);
        return std::nullopt;
      });
}

WikiText2::WikiText2(const std::filesystem::path& root, const std::string& split)
    : LineFileDataset("WikiText2", [&] {
        detail::check_split("WikiText2", split, {"train", "valid", "test"});
        return detail::find_dataset_path("WikiText2", root, std::filesystem::path("wikitext-2") / wikitext_file(split));
      }()) {}

std::optional<std::string> WikiText2::record(std::string line, bool terminated) const {
  if (terminated) line += '\n';
  return line;
}

WikiText103::WikiText103(const std::filesystem::path& root, const std::string& split)
    : LineFileDataset("WikiText103", [&] {
        detail::check_split("WikiText103", split, {"train", "valid", "test"});
        return detail::find_dataset_path("WikiText103", root,
                                         std::filesystem::path("wikitext-103") / wikitext_file(split));
      }()) {}

std::optional<std::string> WikiText103::record(std::string line, bool terminated) const {
  if (terminated) line += '\n';
  return line;
}

PennTreebank::PennTreebank(const std::filesystem::path& root, const std::string& split)
    : LineFileDataset("PennTreebank", [&] {
        detail::check_split("PennTreebank", split, {"train", "valid", "test"});
        return detail::find_dataset_path("PennTreebank", root, "ptb." + split + ".txt");
      }()) {}

std::optional<std::string> PennTreebank::record(std::string line, bool) const { return python_strip(line); }

EnWik9::EnWik9(const std::filesystem::path& root, EnWik9Options options)
    : LineFileDataset("EnWik9", detail::find_dataset_path("EnWik9", root, "enwik9")), options_(options) {}

std::optional<std::string> EnWik9::record(std::string line, bool) const {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (options_.clean) return filter_wikipedia_xml_line(line);
  return line;
}

}  // namespace ember::text
