#pragma once
// ember::IValue: Ember's one dynamic value (Note [One dynamic value type]).
// None, bool, int (int64), float (double), str, Tensor, list, tuple and dict
// (insertion-ordered, str or int keys), as the values of a Python program:
//  - a PyTorch checkpoint loads into it (serialize::load_torch);
//  - JSON parses into it (serialize::json::parse: objects are dicts, arrays lists);
//  - optimizer options and state, scheduler state and transform parameters
//    are ValueMaps of it (name -> IValue, sorted by name);
//  - custom autograd functions keep it in AutogradContext::saved_data.
//
// Lists, tuples, dicts and strings are immutable once made and shared by
// reference, like the Python objects they come from: copying an IValue never
// copies a container or a string's characters (an object pickled twice loads
// as one IValue referenced twice), and a string's hash is computed once. To
// change a list, make a new one (IValue(std::vector<double>{...})).
//
// Accessors come in two spellings:
//  - snake_case (to_double, to_int, ...) convert as Python does: an int reads
//    as a float, a float holding an integer as an int, a one-element tensor as
//    a float (PyTorch's tensor learning rates), a list or tuple of numbers as
//    std::vector<double>;
//  - camelCase (toDouble, toInt, isIntList, ...) are c10::IValue's names and,
//    like them, strict: toDouble of an int is an error.
// Every accessor throws ember::Error naming the expected and the actual type.
//
// Note [One dynamic value type]
// Ember had four: autograd::IValue (saved_data), serialize::IValue (pickles),
// serialize::json::Value (JSON trees) and optim::Value (options and state),
// each with its own conversions and errors, and code converting between them
// (optimizer state from a checkpoint, transform params from JSON). One type
// in the base layer, which autograd, serialize, optim and vision all include,
// removes the converters. The old names stay as aliases where a user-facing
// header exposed them (autograd::IValue, serialize::IValue, optim::Value,
// optim::Dict); docs/serialization.md lists them.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember {

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

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

class IValue {
 public:
  enum class Tag : uint8_t { None, Bool, Int, Double, String, Tensor, List, Tuple, Dict };

  IValue() = default;  // None
  IValue(std::nullopt_t) {}
  IValue(bool v) : tag_(Tag::Bool), v_(v) {}
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  IValue(I v) : tag_(Tag::Int), v_(static_cast<int64_t>(v)) {}
  IValue(double v) : tag_(Tag::Double), v_(v) {}
  IValue(float v) : IValue(static_cast<double>(v)) {}
  IValue(std::string v)
      : tag_(Tag::String), v_(std::make_shared<const detail::SharedString>(std::move(v))) {}
  IValue(const char* v) : IValue(std::string(v)) {}
  IValue(Tensor v) : tag_(Tag::Tensor), v_(std::move(v)) {}
  // Lists: of floats (Adam's betas), ints (sizes) or tensors.
  IValue(const std::vector<double>& v);
  IValue(const std::vector<int64_t>& v);
  IValue(const std::vector<Tensor>& v);
  IValue(std::pair<double, double> v) : IValue(std::vector<double>{v.first, v.second}) {}
  // IntArrayRef (e.g. t.sizes()); a template so that braced lists pick a vector.
  template <class T>
    requires std::is_same_v<T, IntArrayRef>
  IValue(T v) : IValue(v.vec()) {}
  // None when empty.
  template <class T>
  IValue(const std::optional<T>& v) {
    if (v) *this = IValue(*v);
  }
  static IValue list(std::vector<IValue> items);
  static IValue tuple(std::vector<IValue> items);
  static IValue dict(IDict items);
  // A str that shares `text` (not null) instead of copying it.
  static IValue shared_string(std::shared_ptr<const detail::SharedString> text);

  Tag tag() const { return tag_; }
  // "None", "bool", "int", "float", "str", "Tensor", "list", "tuple", "dict".
  std::string_view type_name() const;
  bool is_none() const { return tag_ == Tag::None; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_number() const { return is_int() || is_double(); }  // not bool
  bool is_string() const { return tag_ == Tag::String; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_list() const { return tag_ == Tag::List; }
  bool is_tuple() const { return tag_ == Tag::Tuple; }
  bool is_sequence() const { return is_list() || is_tuple(); }
  bool is_dict() const { return tag_ == Tag::Dict; }
  // A non-empty list or tuple of tensors only.
  bool is_tensor_list() const;

  bool to_bool() const;
  int64_t to_int() const;    // an int, or a float holding an integer
  double to_double() const;  // an int or a float, or a one-element tensor
  const std::string& to_string() const;  // valid while any copy of this IValue lives
  const Tensor& to_tensor() const;
  // The held tensor handle itself (an optimizer replaces its state tensors).
  Tensor& to_tensor();
  const std::vector<IValue>& to_list() const;   // list or tuple elements
  const std::vector<IValue>& to_tuple() const;  // tuples only
  const IDict& to_dict() const;
  // The elements of a list or tuple, each converted as to_double / to_int / to_tensor.
  std::vector<double> to_double_list() const;
  std::vector<int64_t> to_int_list() const;
  std::vector<Tensor> to_tensor_list() const;

  // Typed access for options structs and transform factories: bool, int64_t,
  // double, std::string, Tensor, std::pair<double, double>, std::vector<double>,
  // std::vector<int64_t>, std::vector<Tensor>, and std::optional<...> of those
  // (None -> nullopt).
  template <class T>
  T as() const;

  // Dict lookups (throw when this is not a dict or the key is missing).
  const IValue& at(std::string_view key) const;
  const IValue& at(int64_t key) const;
  const IValue* find(std::string_view key) const;  // nullptr when missing

  // c10::IValue's spellings, strict as there (see the top of this file).
  bool isNone() const { return is_none(); }
  bool isTensor() const { return is_tensor(); }
  bool isDouble() const { return is_double(); }
  bool isInt() const { return is_int(); }
  bool isBool() const { return is_bool(); }
  bool isString() const { return is_string(); }
  bool isList() const { return is_list(); }
  bool isTuple() const { return is_tuple(); }
  bool isGenericDict() const { return is_dict(); }
  bool isIntList() const;  // a list whose elements are all ints
  const Tensor& toTensor() const;
  double toDouble() const;
  int64_t toInt() const;
  bool toBool() const;
  std::vector<int64_t> toIntVector() const;
  const std::string& toStringRef() const;
  // "None", "Tensor", "Double", "Int", "Bool", "String", "GenericList",
  // "Tuple", "GenericDict"; "IntList" for a list of ints (c10's tag names).
  const char* tagKind() const;

  // Equal types and values; tensors: both undefined, or the same dtype, shape and values.
  friend bool operator==(const IValue& a, const IValue& b);
  // Python-like repr: {'a': tensor(float32[2, 3]), 'b': [1, 2.5, None]}.
  friend std::ostream& operator<<(std::ostream& os, const IValue& v);

 private:
  friend class IDict;  // indexes keys by their shared strings
  using Seq = std::shared_ptr<const std::vector<IValue>>;
  [[noreturn]] void type_error(std::string_view expected) const;
  [[noreturn]] void strict_type_error(std::string_view expected) const;
  Tag tag_ = Tag::None;
  std::variant<std::monostate, bool, int64_t, double, std::shared_ptr<const detail::SharedString>, Tensor, Seq,
               std::shared_ptr<const IDict>>
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

// Names mapped to values, sorted by name, mutable: optimizer options and
// per-parameter state, scheduler state, transform parameters.
using ValueMap = std::map<std::string, IValue>;

template <class T>
T IValue::as() const {
  if constexpr (detail::is_optional<T>::value) {
    if (is_none()) return std::nullopt;
    return as<typename T::value_type>();
  } else if constexpr (std::is_same_v<T, double>) {
    return to_double();
  } else if constexpr (std::is_same_v<T, bool>) {
    return to_bool();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return to_int();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return to_string();
  } else if constexpr (std::is_same_v<T, std::pair<double, double>>) {
    const std::vector<double> l = to_double_list();
    EMBER_CHECK(l.size() == 2, "IValue: expected a pair of floats but got ", l.size(), " values");
    return {l[0], l[1]};
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return to_double_list();
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    return to_int_list();
  } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
    return to_tensor_list();
  } else if constexpr (std::is_same_v<T, Tensor>) {
    return to_tensor();
  } else {
    static_assert(sizeof(T) == 0, "IValue::as: unsupported type");
  }
}

}  // namespace ember
