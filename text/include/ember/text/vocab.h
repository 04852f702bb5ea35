#pragma once
// torchtext 0.14's Vocab (torchtext/csrc/vocab.cpp and torchtext/vocab/vocab.py)
// and its factories vocab() and build_vocab_from_iterator()
// (torchtext/vocab/vocab_factory.py), with the same orderings and errors.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ember::text {

class Vocab {
 public:
  Vocab() = default;
  // Tokens get indices 0..n-1 in order; a duplicate token raises ember::Error.
  explicit Vocab(std::vector<std::string> tokens, std::optional<int64_t> default_index = std::nullopt);

  int64_t size() const { return static_cast<int64_t>(itos_.size()); }
  bool contains(std::string_view token) const;

  // The token's index; a missing token gives the default index, or raises
  // ember::Error naming the token when none is set.
  int64_t operator[](std::string_view token) const { return lookup_index(token); }
  int64_t lookup_index(std::string_view token) const;
  std::vector<int64_t> lookup_indices(const std::vector<std::string>& tokens) const;
  // An index outside [0, size) raises ember::Error.
  const std::string& lookup_token(int64_t index) const;
  std::vector<std::string> lookup_tokens(const std::vector<int64_t>& indices) const;

  // Inserts `token` at `index` (0..size), shifting later tokens up by one; an
  // index out of range or a token already present raises ember::Error.
  void insert_token(std::string token, int64_t index);
  // Appends `token` at index size(); a token already present raises ember::Error.
  void append_token(std::string token);

  // nullopt unsets it (missing tokens raise again). Like torchtext, the index is
  // not range checked: it is what a missing token maps to.
  void set_default_index(std::optional<int64_t> index) { default_index_ = index; }
  std::optional<int64_t> get_default_index() const { return default_index_; }

  std::unordered_map<std::string, int64_t> get_stoi() const;
  const std::vector<std::string>& get_itos() const { return itos_; }

  // File format (docs/text.md, "Vocab files"): the line "ember-text-vocab 1",
  // the line "default_index <n>" or "default_index none", the line "size <n>",
  // then per token "<byte length> <token bytes>\n". Tokens may hold any bytes.
  void save(const std::string& path) const;
  // A missing, truncated or malformed file, or one with duplicate tokens, raises
  // ember::Error naming the path and what is wrong.
  static Vocab load(const std::string& path);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> itos_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> stoi_;
  std::optional<int64_t> default_index_;
};

// torchtext.vocab.vocab: the tokens of `ordered_dict` (in its order) whose
// frequency is >= min_freq, with `specials` removed from it and put first (or
// last when special_first is false). min_freq < 1 raises ember::Error.
Vocab vocab(std::vector<std::pair<std::string, int64_t>> ordered_dict, int64_t min_freq = 1,
            const std::vector<std::string>& specials = {}, bool special_first = true);

// Counts tokens for build_vocab_from_iterator (collections.Counter).
class TokenCounter {
 public:
  void update(const std::vector<std::string>& tokens);
  void add(std::string_view token, int64_t count = 1);
  // (token, count) sorted as torchtext sorts them: count descending, then token
  // ascending by bytes (for UTF-8, Python's code point order).
  std::vector<std::pair<std::string, int64_t>> sorted_by_frequency() const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> counts_;
};

// torchtext.vocab.build_vocab_from_iterator from counted tokens: the
// max_tokens - len(specials) most frequent tokens (before specials are removed
// from them, as torchtext does), then vocab(). max_tokens <= len(specials)
// raises ember::Error.
Vocab build_vocab_from_counter(const TokenCounter& counter, int64_t min_freq = 1,
                               const std::vector<std::string>& specials = {}, bool special_first = true,
                               std::optional<int64_t> max_tokens = std::nullopt);

// build_vocab_from_iterator over any range of token lists (vector<vector<string>>, ...).
template <class TokenLists>
Vocab build_vocab_from_iterator(const TokenLists& iterator, int64_t min_freq = 1,
                                const std::vector<std::string>& specials = {}, bool special_first = true,
                                std::optional<int64_t> max_tokens = std::nullopt) {
  TokenCounter counter;
  for (const auto& tokens : iterator) {
    for (const auto& token : tokens) counter.add(std::string_view(token));
  }
  return build_vocab_from_counter(counter, min_freq, specials, special_first, max_tokens);
}

}  // namespace ember::text
