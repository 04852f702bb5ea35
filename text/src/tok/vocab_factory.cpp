// torchtext/vocab/vocab_factory.py: vocab() and build_vocab_from_iterator().
#include <algorithm>
#include <unordered_set>

#include <ember/core/error.h>
#include <ember/text/vocab.h>

namespace ember::text {

void TokenCounter::update(const std::vector<std::string>& tokens) {
  for (const auto& token : tokens) add(token);
}

void TokenCounter::add(std::string_view token, int64_t count) {
  const auto it = counts_.find(token);
  if (it != counts_.end()) {
    it->second += count;
  } else {
    counts_.emplace(std::string(token), count);
  }
}

std::vector<std::pair<std::string, int64_t>> TokenCounter::sorted_by_frequency() const {
  std::vector<std::pair<std::string, int64_t>> items(counts_.begin(), counts_.end());
  // sorted(counter.items(), key=lambda x: (-x[1], x[0])): byte order of UTF-8 is
  // code point order, which is how Python compares str.
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return items;
}

Vocab vocab(std::vector<std::pair<std::string, int64_t>> ordered_dict, int64_t min_freq,
            const std::vector<std::string>& specials, bool special_first) {
  EMBER_CHECK(min_freq >= 1, "vocab: min_freq must be >= 1, got ", min_freq);
  const std::unordered_set<std::string_view> special_set(specials.begin(), specials.end());
  std::vector<std::string> tokens;
  if (special_first) tokens.insert(tokens.end(), specials.begin(), specials.end());
  for (auto& [token, freq] : ordered_dict) {
    // ordered_dict.pop(special) for each special, then the frequency filter.
    if (special_set.count(token) == 0 && freq >= min_freq) tokens.push_back(std::move(token));
  }
  if (!special_first) tokens.insert(tokens.end(), specials.begin(), specials.end());
  return Vocab(std::move(tokens));
}

Vocab build_vocab_from_counter(const TokenCounter& counter, int64_t min_freq, const std::vector<std::string>& specials,
                               bool special_first, std::optional<int64_t> max_tokens) {
  auto sorted = counter.sorted_by_frequency();
  if (max_tokens) {
    const auto n_specials = static_cast<int64_t>(specials.size());
    EMBER_CHECK(n_specials < *max_tokens, "build_vocab_from_iterator: max_tokens (", *max_tokens,
                ") must exceed the number of specials (", n_specials,
                "), else the vocab would be entirely special tokens");
    const auto keep = static_cast<size_t>(*max_tokens - n_specials);
    if (sorted.size() > keep) sorted.resize(keep);
  }
  return vocab(std::move(sorted), min_freq, specials, special_first);
}

}  // namespace ember::text
