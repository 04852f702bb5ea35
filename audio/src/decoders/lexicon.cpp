// Lexicon: a token trie of the allowed words.
#include <ember/audio/decoders/lexicon.h>

#include <ember/core/error.h>

#include <algorithm>

namespace ember::audio::decoders {

Lexicon::Lexicon(const std::vector<std::vector<int64_t>>& words, int64_t word_delimiter)
    : word_delimiter_(word_delimiter), max_token_(word_delimiter) {
  EMBER_CHECK(word_delimiter >= 0, "Lexicon: the word delimiter must be a token index (>= 0), got ", word_delimiter);
  EMBER_CHECK(!words.empty(), "Lexicon: no words given");
  nodes_.emplace_back();
  for (size_t w = 0; w < words.size(); ++w) {
    const auto& word = words[w];
    EMBER_CHECK(!word.empty(), "Lexicon: word ", w, " is empty");
    int32_t node = kRoot;
    for (const int64_t token : word) {
      EMBER_CHECK(token >= 0, "Lexicon: word ", w, " has a negative token ", token);
      EMBER_CHECK(token != word_delimiter, "Lexicon: word ", w, " contains the word delimiter ", word_delimiter);
      max_token_ = std::max(max_token_, token);
      auto& children = nodes_[static_cast<size_t>(node)].children;
      auto it = std::lower_bound(children.begin(), children.end(), token,
                                 [](const auto& entry, int64_t t) { return entry.first < t; });
      if (it != children.end() && it->first == token) {
        node = it->second;
      } else {
        const auto fresh = static_cast<int32_t>(nodes_.size());
        children.insert(it, {token, fresh});
        nodes_.emplace_back();  // invalidates `children`; not used again below
        node = fresh;
      }
    }
    if (!nodes_[static_cast<size_t>(node)].is_word) ++num_words_;
    nodes_[static_cast<size_t>(node)].is_word = true;
  }
}

Lexicon Lexicon::from_words(const std::vector<std::string>& words, const std::vector<std::string>& tokens,
                            const std::string& word_delimiter, int64_t blank) {
  const auto delimiter_it = std::find(tokens.begin(), tokens.end(), word_delimiter);
  EMBER_CHECK(delimiter_it != tokens.end(), "Lexicon::from_words: the word delimiter \"", word_delimiter,
              "\" is not a token");
  const auto delimiter = static_cast<int64_t>(delimiter_it - tokens.begin());
  EMBER_CHECK(delimiter != blank, "Lexicon::from_words: the word delimiter \"", word_delimiter, "\" is the blank");
  std::vector<std::vector<int64_t>> spelled;
  spelled.reserve(words.size());
  for (const auto& word : words) {
    EMBER_CHECK(!word.empty(), "Lexicon::from_words: a word is empty");
    std::vector<int64_t> ids;
    size_t pos = 0;
    while (pos < word.size()) {
      int64_t best = -1;
      size_t best_len = 0;
      for (size_t t = 0; t < tokens.size(); ++t) {
        const auto id = static_cast<int64_t>(t);
        const std::string& text = tokens[t];
        if (id == blank || id == delimiter || text.empty() || text.size() <= best_len) continue;
        if (word.compare(pos, text.size(), text) == 0) best = id, best_len = text.size();
      }
      EMBER_CHECK(best >= 0, "Lexicon::from_words: cannot spell \"", word, "\" at byte ", pos,
                  " with the given tokens");
      ids.push_back(best);
      pos += best_len;
    }
    spelled.push_back(std::move(ids));
  }
  return Lexicon(spelled, delimiter);
}

bool Lexicon::uses_token(int64_t token) const {
  for (const auto& node : nodes_) {
    for (const auto& [t, child] : node.children) {
      if (t == token) return true;
    }
  }
  return false;
}

int32_t Lexicon::child(int32_t node, int64_t token) const {
  const auto& children = nodes_[static_cast<size_t>(node)].children;
  auto it = std::lower_bound(children.begin(), children.end(), token,
                             [](const auto& entry, int64_t t) { return entry.first < t; });
  return (it != children.end() && it->first == token) ? it->second : -1;
}

}  // namespace ember::audio::decoders
