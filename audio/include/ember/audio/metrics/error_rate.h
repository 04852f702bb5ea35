#pragma once
// ember::audio::metrics: edit distance with alignment counts, and word / character
// error rates over corpora. The distance is torchaudio.functional.edit_distance's
// (Levenshtein: unit-cost substitutions, insertions, deletions); the rates are
// jiwer's and sclite's: total errors over total reference tokens.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ember::audio::metrics {

// How a hypothesis aligns to its reference. Of the minimum-distance alignments
// it is the one with the most hits (equivalently, the fewest substitutions):
// "a b" against "b c" is a deletion, a hit and an insertion, not two substitutions.
struct EditCounts {
  int64_t hits = 0;
  int64_t substitutions = 0;
  int64_t deletions = 0;   // reference tokens missing from the hypothesis
  int64_t insertions = 0;  // hypothesis tokens with no reference token
  // The edit (Levenshtein) distance.
  int64_t errors() const { return substitutions + deletions + insertions; }
  int64_t reference_length() const { return hits + substitutions + deletions; }
  int64_t hypothesis_length() const { return hits + substitutions + insertions; }
  EditCounts& operator+=(const EditCounts& other);
  bool operator==(const EditCounts&) const = default;
};

EditCounts edit_distance(std::span<const int64_t> reference, std::span<const int64_t> hypothesis);
EditCounts edit_distance(std::span<const std::string> reference, std::span<const std::string> hypothesis);
// Over Unicode code points (the strings are UTF-8; invalid UTF-8 is an error).
EditCounts edit_distance(std::string_view reference, std::string_view hypothesis);

struct ErrorRate {
  double rate = 0.0;  // counts.errors() / counts.reference_length()
  EditCounts counts;  // summed over the corpus
};

// The words of a transcript: split on ASCII whitespace (runs count as one).
std::vector<std::string> split_words(std::string_view text);

// WER over a corpus of (reference, hypothesis) transcripts: the errors of all
// pairs over the reference words of all pairs (not a mean of per-pair rates).
// An empty reference transcript counts its hypothesis words as insertions; a
// corpus without reference words is an error.
ErrorRate word_error_rate(std::span<const std::string> references, std::span<const std::string> hypotheses);
ErrorRate word_error_rate(std::string_view reference, std::string_view hypothesis);
// CER likewise over Unicode code points of the transcripts as given (spaces
// included; nothing is normalised).
ErrorRate char_error_rate(std::span<const std::string> references, std::span<const std::string> hypotheses);
ErrorRate char_error_rate(std::string_view reference, std::string_view hypothesis);

}  // namespace ember::audio::metrics
