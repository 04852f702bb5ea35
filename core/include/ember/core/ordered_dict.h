#pragma once
// OrderedDict: a map that keeps insertion order (PyTorch's state_dict and
// named_parameters are ordered). Lookup is linear for small dicts and hashed
// beyond that.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"

namespace ember {

template <class Key, class Value>
class OrderedDict {
 public:
  using Item = std::pair<Key, Value>;

  OrderedDict() = default;
  OrderedDict(std::initializer_list<Item> items) {
    for (const auto& it : items) insert(it.first, it.second);
  }

  // Inserts a new key; an existing key is an error (use operator[] or set to replace).
  Value& insert(Key key, Value value) {
    EMBER_CHECK(!contains(key), "OrderedDict: key '", key, "' already exists");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().second;
  }
  // Inserts or replaces.
  Value& set(const Key& key, Value value) {
    if (Value* v = find(key)) return *v = std::move(value);
    return insert(key, std::move(value));
  }
  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  const Value* find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  bool contains(const Key& key) const { return index_.count(key) != 0; }
  const Value& at(const Key& key) const {
    const Value* v = find(key);
    EMBER_CHECK(v != nullptr, "OrderedDict: no key '", key, "'");
    return *v;
  }
  Value& at(const Key& key) {
    Value* v = find(key);
    EMBER_CHECK(v != nullptr, "OrderedDict: no key '", key, "'");
    return *v;
  }
  const Value& operator[](const Key& key) const { return at(key); }
  Value& operator[](const Key& key) { return at(key); }
  // Removes a key (order of the others is kept).
  bool erase(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
    rebuild_index();
    return true;
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }
  const std::vector<Item>& items() const { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> k;
    for (const auto& it : items_) k.push_back(it.first);
    return k;
  }
  std::vector<Value> values() const {
    std::vector<Value> v;
    for (const auto& it : items_) v.push_back(it.second);
    return v;
  }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  void rebuild_index() {
    index_.clear();
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].first, i);
  }
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
