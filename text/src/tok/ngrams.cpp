// torchtext.data.utils.ngrams_iterator, materialised.
#include <ember/core/error.h>
#include <ember/text/basic_tokenizers.h>

namespace ember::text {

std::vector<std::string> ngrams_iterator(const std::vector<std::string>& token_list, int64_t ngrams) {
  EMBER_CHECK(ngrams >= 1, "ngrams_iterator: ngrams must be >= 1, got ", ngrams);
  std::vector<std::string> out(token_list);
  const auto count = static_cast<int64_t>(token_list.size());
  for (int64_t n = 2; n <= ngrams && n <= count; ++n) {
    for (int64_t start = 0; start + n <= count; ++start) {
      std::string gram = token_list[start];
      for (int64_t k = 1; k < n; ++k) {
        gram.push_back(' ');
        gram += token_list[start + k];
      }
      out.push_back(std::move(gram));
    }
  }
  return out;
}

}  // namespace ember::text
