#pragma once
// OrderedDict<V>: a string-keyed map that remembers insertion order, like
// Python's dict / collections.OrderedDict. StateDict (name -> Tensor) is what
// ember::save/load and nn::Module::state_dict use; Metadata (string -> string)
// is the free-form "__metadata__" of a safetensors file.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember {

template <class V>
class OrderedDict {
 public:
  using key_type = std::string;
  using mapped_type = V;
  using value_type = std::pair<std::string, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  OrderedDict() = default;
  OrderedDict(std::initializer_list<value_type> items) {
    for (const auto& [k, v] : items) insert(k, v);
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  const value_type& item(size_t i) const { return items_.at(i); }
  const std::vector<value_type>& items() const { return items_; }

  bool contains(std::string_view key) const { return index_.count(std::string(key)) != 0; }
  // Pointer to the value, or nullptr when the key is missing.
  V* find(std::string_view key) {
    auto it = index_.find(std::string(key));
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  const V* find(std::string_view key) const {
    auto it = index_.find(std::string(key));
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  // Throws ember::Error naming the key when it is missing.
  V& at(std::string_view key) {
    V* v = find(key);
    EMBER_CHECK(v != nullptr, "OrderedDict: no key '", key, "'");
    return *v;
  }
  const V& at(std::string_view key) const {
    const V* v = find(key);
    EMBER_CHECK(v != nullptr, "OrderedDict: no key '", key, "'");
    return *v;
  }
  // Inserts a default value at the end when the key is missing (Python's d[k] = v).
  V& operator[](const std::string& key) {
    if (V* v = find(key)) return *v;
    return insert(key, V{});
  }
  // Adds key at the end; an existing key keeps its position and gets the new
  // value (as Python's d[k] = v).
  V& insert(std::string key, V value) {
    auto it = index_.find(key);
    if (it != index_.end()) return items_[it->second].second = std::move(value);
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().second;
  }
  // Removes key; returns whether it was there.
  bool erase(std::string_view key) {
    auto it = index_.find(std::string(key));
    if (it == index_.end()) return false;
    const size_t pos = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
    for (size_t i = pos; i < items_.size(); ++i) index_[items_[i].first] = i;
    return true;
  }
  void clear() {
    items_.clear();
    index_.clear();
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& kv : items_) out.push_back(kv.first);
    return out;
  }
  std::vector<V> values() const {
    std::vector<V> out;
    out.reserve(items_.size());
    for (const auto& kv : items_) out.push_back(kv.second);
    return out;
  }

 private:
  std::vector<value_type> items_;
  std::unordered_map<std::string, size_t> index_;
};

// name -> tensor, in insertion order: what a module's state_dict() returns and
// what ember::save writes.
using StateDict = OrderedDict<Tensor>;
// The string -> string "__metadata__" block of a safetensors file.
using Metadata = OrderedDict<std::string>;

}  // namespace ember
