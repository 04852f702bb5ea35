#pragma once
// ember::audio::decoders::Lexicon: the words a CTC beam search may spell, as a
// token trie, and the token that separates words.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::audio::decoders {

class Lexicon {
 public:
  // Each word is a non-empty token sequence without the delimiter; duplicates
  // are merged. word_delimiter is the token between words ("|" in wav2letter's
  // alphabets, the space in character ones).
  Lexicon(const std::vector<std::vector<int64_t>>& words, int64_t word_delimiter);

  // Words spelled with a token vocabulary (tokens[i] is token i's text): each
  // word is split greedily into the longest matching token texts, never
  // using the blank or the delimiter. A word that cannot be spelled is an
  // error naming it and the position.
  static Lexicon from_words(const std::vector<std::string>& words, const std::vector<std::string>& tokens,
                            const std::string& word_delimiter, int64_t blank = 0);

  int64_t word_delimiter() const { return word_delimiter_; }
  int64_t num_words() const { return num_words_; }
  // The largest token of any word (or the delimiter), to check against the vocabulary.
  int64_t max_token() const { return max_token_; }
  // Whether any word uses the token.
  bool uses_token(int64_t token) const;

  // Trie walk: the root is the empty partial word.
  static constexpr int32_t kRoot = 0;
  // The node after appending token to node's partial word, or -1 when no word continues so.
  int32_t child(int32_t node, int64_t token) const;
  // Whether node's partial word is a whole word.
  bool is_word(int32_t node) const { return nodes_[static_cast<size_t>(node)].is_word; }

 private:
  struct Node {
    std::vector<std::pair<int64_t, int32_t>> children;  // sorted by token
    bool is_word = false;
  };
  std::vector<Node> nodes_;
  int64_t word_delimiter_ = 0;
  int64_t num_words_ = 0;
  int64_t max_token_ = 0;
};

}  // namespace ember::audio::decoders
