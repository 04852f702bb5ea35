#pragma once
// IValue: the value tree a PyTorch checkpoint loads into (serialize::load_torch):
// None, bool, int, float (double), str, Tensor, list, tuple, and dicts
// (insertion-ordered, str or int keys; collections.OrderedDict loads as a
// dict). Containers are immutable once loaded and shared by reference, like
// the Python objects they came from: an object pickled twice (a tensor in two
// places) loads as one IValue referenced twice. Strings are shared too:
// copying an IValue never copies its characters, and a string's hash is
// computed once, so a string a pickle references a thousand times through
// its memo (as a value or as the key of a thousand dicts) is held once and
// hashed once.
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::serialize {

class IDict;

namespace detail {
// A str's characters and their hash (std::hash<std::string>), computed once
// and never modified: shared by every IValue copy and, while loading, by the
// unpickler's arena.
class SharedString {
 public:
  explicit SharedString(std::string text) : text_(std::move(text)), hash_(std::hash<std::string>{}(text_)) {}
  const std::string& str() const { return text_; }
  size_t hash() const { return hash_; }

 private:
  std::string text_;
  size_t hash_;
};

// A key of a string-keyed index: a view of the characters and their hash, so
// that indexing a shared string neither copies nor rehashes it; two views of
// the same characters compare equal without reading them.
struct HashedKey {
  std::string_view text;
  size_t hash;
};
struct HashedKeyHash {
  size_t operator()(const HashedKey& k) const { return k.hash; }
};
struct HashedKeyEq {
  bool operator()(const HashedKey& a, const HashedKey& b) const {
    return a.hash == b.hash && a.text.size() == b.text.size() &&
           (a.text.data() == b.text.data() || a.text == b.text);
  }
};
inline HashedKey hashed_key(const SharedString& s) { return {s.str(), s.hash()}; }
inline HashedKey hashed_key(std::string_view s) { return {s, std::hash<std::string_view>{}(s)}; }
}  // namespace detail

class IValue {
 public:
  enum class Tag : uint8_t { None, Bool, Int, Double, String, Tensor, List, Tuple, Dict };

  IValue() = default;  // None
  IValue(bool v) : tag_(Tag::Bool), v_(v) {}
  IValue(int v) : tag_(Tag::Int), v_(int64_t{v}) {}
  IValue(int64_t v) : tag_(Tag::Int), v_(v) {}
  IValue(double v) : tag_(Tag::Double), v_(v) {}
  IValue(std::string v)
      : tag_(Tag::String), v_(std::make_shared<const detail::SharedString>(std::move(v))) {}
  IValue(const char* v) : IValue(std::string(v)) {}
  // A str that shares `text` (not null) instead of copying it.
  static IValue shared_string(std::shared_ptr<const detail::SharedString> text);
  IValue(Tensor v) : tag_(Tag::Tensor), v_(std::move(v)) {}
  static IValue list(std::vector<IValue> items);
  static IValue tuple(std::vector<IValue> items);
  static IValue dict(IDict items);

  Tag tag() const { return tag_; }
  // "None", "bool", "int", "float", "str", "Tensor", "list", "tuple", "dict".
  std::string_view type_name() const;
  bool is_none() const { return tag_ == Tag::None; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_string() const { return tag_ == Tag::String; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_list() const { return tag_ == Tag::List; }
  bool is_tuple() const { return tag_ == Tag::Tuple; }
  bool is_dict() const { return tag_ == Tag::Dict; }

  // Accessors throw ember::Error naming the actual type on a mismatch.
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;  // an int converts, as Python's float(x)
  const std::string& to_string() const;  // valid while any copy of this IValue lives
  const Tensor& to_tensor() const;
  const std::vector<IValue>& to_list() const;   // list or tuple elements
  const std::vector<IValue>& to_tuple() const;  // tuples only
  const IDict& to_dict() const;

  // Dict lookups (throw when this is not a dict or the key is missing).
  const IValue& at(std::string_view key) const;
  const IValue& at(int64_t key) const;
  const IValue* find(std::string_view key) const;  // nullptr when missing

  // Python-like repr: {'a': tensor(float32[2, 3]), 'b': [1, 2.5, None]}.
  friend std::ostream& operator<<(std::ostream& os, const IValue& v);

 private:
  friend class IDict;  // indexes keys by their shared strings
  using Seq = std::shared_ptr<const std::vector<IValue>>;
  [[noreturn]] void type_error(std::string_view expected) const;
  Tag tag_ = Tag::None;
  std::variant<std::monostate, bool, int64_t, double, std::shared_ptr<const detail::SharedString>,
               Tensor, Seq, std::shared_ptr<const IDict>>
      v_;
};

// An insertion-ordered dict with str or int keys; inserting an existing key
// replaces its value in place (as Python's dict). The index refers to the
// keys' shared strings, never to copies of them.
class IDict {
 public:
  using Item = std::pair<IValue, IValue>;
  // key must be a str or an int (ember::Error otherwise).
  void insert(IValue key, IValue value);
  // Room for n items without reallocating.
  void reserve(size_t n);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  std::vector<Item>::const_iterator end() const { return items_.end(); }
  const Item& item(size_t i) const { return items_.at(i); }
  const IValue* find(std::string_view key) const;
  const IValue* find(int64_t key) const;

 private:
  std::vector<Item> items_;
  // Views of the keys' strings, which the items own (shared, never
  // modified), with their precomputed hashes.
  std::unordered_map<detail::HashedKey, size_t, detail::HashedKeyHash, detail::HashedKeyEq> str_index_;
  std::unordered_map<int64_t, size_t> int_index_;
};

}  // namespace ember::serialize
