// Edit distance with alignment counts, WER and CER.
//
// Note [Alignment counts]
// The distance is torchaudio.functional.edit_distance's Levenshtein distance.
// Several alignments can reach it with different splits into substitutions,
// deletions and insertions ("a b" -> "b c": two substitutions, or a deletion
// and an insertion around a hit). Each cell of the dynamic programme keeps the
// lexicographically smallest (errors, substitutions): the minimum distance
// first, then the most hits. Within a cell, errors and substitutions fix the
// rest: deletions - insertions is the difference of the prefix lengths, so the
// counts do not depend on the order in which ties are visited.
#include <ember/audio/metrics/error_rate.h>

#include <ember/core/error.h>

#include <cstdint>
#include <vector>

namespace ember::audio::metrics {
namespace {

struct Cell {
  int64_t errors = 0;
  EditCounts counts;
};

bool better(const Cell& a, const Cell& b) {
  if (a.errors != b.errors) return a.errors < b.errors;
  return a.counts.substitutions < b.counts.substitutions;
}

template <typename T>
EditCounts align(std::span<const T> reference, std::span<const T> hypothesis) {
  const size_t n_hyp = hypothesis.size();
  // Row i: reference prefix of length i against every hypothesis prefix.
  std::vector<Cell> previous(n_hyp + 1);
  std::vector<Cell> current(n_hyp + 1);
  for (size_t j = 0; j <= n_hyp; ++j) {
    previous[j].errors = static_cast<int64_t>(j);
    previous[j].counts.insertions = static_cast<int64_t>(j);
  }
  for (size_t i = 1; i <= reference.size(); ++i) {
    current[0] = previous[0];
    current[0].errors += 1;
    current[0].counts.deletions += 1;
    for (size_t j = 1; j <= n_hyp; ++j) {
      Cell diagonal = previous[j - 1];
      if (reference[i - 1] == hypothesis[j - 1]) {
        diagonal.counts.hits += 1;
      } else {
        diagonal.errors += 1;
        diagonal.counts.substitutions += 1;
      }
      Cell deletion = previous[j];
      deletion.errors += 1;
      deletion.counts.deletions += 1;
      Cell insertion = current[j - 1];
      insertion.errors += 1;
      insertion.counts.insertions += 1;
      Cell best = diagonal;
      if (better(deletion, best)) best = deletion;
      if (better(insertion, best)) best = insertion;
      current[j] = best;
    }
    std::swap(previous, current);
  }
  return previous[n_hyp].counts;
}

// UTF-8 to code points; rejects malformed, overlong and surrogate encodings.
std::vector<char32_t> code_points(std::string_view text, const char* op) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    int extra = 0;
    char32_t cp = 0;
    char32_t minimum = 0;
    if (lead < 0x80) {
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1, cp = lead & 0x1F, minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2, cp = lead & 0x0F, minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3, cp = lead & 0x07, minimum = 0x10000;
    } else {
      EMBER_CHECK(false, op, ": invalid UTF-8 lead byte ", static_cast<int>(lead), " at byte ", i);
    }
    for (int k = 1; k <= extra; ++k) {
      EMBER_CHECK(i + static_cast<size_t>(k) < text.size(), op, ": truncated UTF-8 sequence at byte ", i);
      const auto next = static_cast<unsigned char>(text[i + static_cast<size_t>(k)]);
      EMBER_CHECK((next & 0xC0) == 0x80, op, ": invalid UTF-8 continuation byte at byte ", i + static_cast<size_t>(k));
      cp = (cp << 6) | (next & 0x3F);
    }
    EMBER_CHECK(cp >= minimum && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF), op,
                ": invalid UTF-8 sequence at byte ", i);
    out.push_back(cp);
    i += static_cast<size_t>(extra) + 1;
  }
  return out;
}

void check_corpus(const char* op, size_t references, size_t hypotheses) {
  EMBER_CHECK(references == hypotheses, op, ": ", references, " references but ", hypotheses, " hypotheses");
}

ErrorRate finish(const char* op, const EditCounts& counts) {
  EMBER_CHECK(counts.reference_length() > 0, op,
              ": the references have no tokens, so the rate is undefined (errors: ", counts.errors(), ")");
  return ErrorRate{static_cast<double>(counts.errors()) / static_cast<double>(counts.reference_length()), counts};
}

}  // namespace

EditCounts& EditCounts::operator+=(const EditCounts& other) {
  hits += other.hits;
  substitutions += other.substitutions;
  deletions += other.deletions;
  insertions += other.insertions;
  return *this;
}

EditCounts edit_distance(std::span<const int64_t> reference, std::span<const int64_t> hypothesis) {
  return align(reference, hypothesis);
}

EditCounts edit_distance(std::span<const std::string> reference, std::span<const std::string> hypothesis) {
  return align(reference, hypothesis);
}

EditCounts edit_distance(std::string_view reference, std::string_view hypothesis) {
  const auto r = code_points(reference, "edit_distance");
  const auto h = code_points(hypothesis, "edit_distance");
  return align(std::span<const char32_t>(r), std::span<const char32_t>(h));
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

ErrorRate word_error_rate(std::span<const std::string> references, std::span<const std::string> hypotheses) {
  check_corpus("word_error_rate", references.size(), hypotheses.size());
  EditCounts total;
  for (size_t k = 0; k < references.size(); ++k) {
    const auto r = split_words(references[k]);
    const auto h = split_words(hypotheses[k]);
    total += align(std::span<const std::string>(r), std::span<const std::string>(h));
  }
  return finish("word_error_rate", total);
}

ErrorRate word_error_rate(std::string_view reference, std::string_view hypothesis) {
  const std::string r(reference);
  const std::string h(hypothesis);
  return word_error_rate(std::span<const std::string>(&r, 1), std::span<const std::string>(&h, 1));
}

ErrorRate char_error_rate(std::span<const std::string> references, std::span<const std::string> hypotheses) {
  check_corpus("char_error_rate", references.size(), hypotheses.size());
  EditCounts total;
  for (size_t k = 0; k < references.size(); ++k) {
    const auto r = code_points(references[k], "char_error_rate");
    const auto h = code_points(hypotheses[k], "char_error_rate");
    total += align(std::span<const char32_t>(r), std::span<const char32_t>(h));
  }
  return finish("char_error_rate", total);
}

ErrorRate char_error_rate(std::string_view reference, std::string_view hypothesis) {
  const std::string r(reference);
  const std::string h(hypothesis);
  return char_error_rate(std::span<const std::string>(&r, 1), std::span<const std::string>(&h, 1));
}

}  // namespace ember::audio::metrics
