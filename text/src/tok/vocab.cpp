// torchtext's Vocab (torchtext/csrc/vocab.cpp): the lookups, insertions and their errors.
#include <ember/core/error.h>
#include <ember/text/vocab.h>

namespace ember::text {

Vocab::Vocab(std::vector<std::string> tokens, std::optional<int64_t> default_index)
    : default_index_(default_index) {
  itos_.reserve(tokens.size());
  stoi_.reserve(tokens.size());
  for (auto& token : tokens) {
    const auto index = static_cast<int64_t>(itos_.size());
    const bool inserted = stoi_.emplace(token, index).second;
    EMBER_CHECK(inserted, "Vocab: duplicate token '", token, "' in the tokens list (at indices ",
                stoi_.find(token)->second, " and ", index, ")");
    itos_.push_back(std::move(token));
  }
}

bool Vocab::contains(std::string_view token) const { return stoi_.find(token) != stoi_.end(); }

int64_t Vocab::lookup_index(std::string_view token) const {
  const auto it = stoi_.find(token);
  if (it != stoi_.end()) return it->second;
  EMBER_CHECK(default_index_.has_value(), "Vocab: token '", token,
              "' not found and default index is not set (use set_default_index)");
  return *default_index_;
}

std::vector<int64_t> Vocab::lookup_indices(const std::vector<std::string>& tokens) const {
  std::vector<int64_t> out;
  out.reserve(tokens.size());
  for (const auto& token : tokens) out.push_back(lookup_index(token));
  return out;
}

const std::string& Vocab::lookup_token(int64_t index) const {
  EMBER_CHECK(index >= 0 && index < size(), "Vocab::lookup_token: index ", index,
              " is out of bounds for a vocab of size ", size());
  return itos_[static_cast<size_t>(index)];
}

std::vector<std::string> Vocab::lookup_tokens(const std::vector<int64_t>& indices) const {
  std::vector<std::string> out;
  out.reserve(indices.size());
  for (const int64_t index : indices) out.push_back(lookup_token(index));
  return out;
}

void Vocab::insert_token(std::string token, int64_t index) {
  EMBER_CHECK(index >= 0 && index <= size(), "Vocab::insert_token: index ", index,
              " is out of bounds for a vocab of size ", size(), " (valid: 0..", size(), ")");
  const auto it = stoi_.find(token);
  EMBER_CHECK(it == stoi_.end(), "Vocab::insert_token: token '", token, "' already exists with index ",
              it == stoi_.end() ? -1 : it->second);
  for (size_t i = static_cast<size_t>(index); i < itos_.size(); ++i) {
    stoi_.find(itos_[i])->second = static_cast<int64_t>(i) + 1;
  }
  stoi_.emplace(token, index);
  itos_.insert(itos_.begin() + index, std::move(token));
}

void Vocab::append_token(std::string token) {
  const auto it = stoi_.find(token);
  EMBER_CHECK(it == stoi_.end(), "Vocab::append_token: token '", token, "' already exists with index ",
              it == stoi_.end() ? -1 : it->second);
  stoi_.emplace(token, size());
  itos_.push_back(std::move(token));
}

std::unordered_map<std::string, int64_t> Vocab::get_stoi() const {
  return std::unordered_map<std::string, int64_t>(stoi_.begin(), stoi_.end());
}

}  // namespace ember::text
