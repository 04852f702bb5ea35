#pragma once
// ember-asr's character vocabulary: the CTC blank, the space between words,
// the apostrophe and A-Z (LibriSpeech's transcripts use exactly these), 29
// classes as in torchaudio's LibriSpeech recipes.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/audio/decoders/lexicon.h>

namespace ember::apps::asr_app {

class CharVocabulary {
 public:
  static constexpr int64_t kBlank = 0;
  static constexpr int64_t kSpace = 1;

  CharVocabulary();
  // From a checkpoint's token list; it must be this vocabulary's.
  explicit CharVocabulary(const std::vector<std::string>& tokens);

  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
  // tokens()[i] is class i's text; the blank's is "_".
  const std::vector<std::string>& tokens() const { return tokens_; }

  // A transcript as class ids: lower case is upper-cased, runs of spaces are
  // one space, leading and trailing spaces go. Any other character is an
  // ember::Error naming `what` (the utterance) and the character.
  std::vector<int64_t> encode(const std::string& transcript, const std::string& what) const;
  // The normalised transcript encode() spells.
  std::string normalize(const std::string& transcript, const std::string& what) const;
  std::string decode(const std::vector<int64_t>& ids) const;

  // The lexicon of a word list file (one word per line; the first
  // whitespace-separated field, upper-cased; blank lines and lines starting
  // with '#' skipped), for the beam search.
  audio::decoders::Lexicon read_lexicon(const std::string& path) const;

 private:
  std::vector<std::string> tokens_;
};

}  // namespace ember::apps::asr_app
