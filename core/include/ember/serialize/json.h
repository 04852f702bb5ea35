#pragma once
// A small, strict JSON reader and string quoting, for the safetensors header,
// optimizer state and saved transforms (RFC 8259: no comments, no trailing
// commas, no NaN; strings must be valid UTF-8; duplicate object keys and
// nesting deeper than kMaxDepth are errors).
// Errors are ember::Error naming `what` and the byte offset.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ember::serialize::json {

struct Value {
  // Special members are defined after the class: clang instantiates the
  // containers' constexpr destructors eagerly, before Value is complete.
  Value();
  ~Value();
  Value(const Value&);
  Value(Value&&) noexcept;
  Value& operator=(const Value&);
  Value& operator=(Value&&) noexcept;

  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  // Numbers: is_integer when written without fraction or exponent and within
  // int64; `integer` then holds it. `number` always holds the double value.
  bool is_integer = false;
  int64_t integer = 0;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;  // in document order

  // The member named key, or nullptr.
  const Value* get(std::string_view key) const;
};

inline Value::Value() = default;
inline Value::~Value() = default;
inline Value::Value(const Value&) = default;
inline Value::Value(Value&&) noexcept = default;
inline Value& Value::operator=(const Value&) = default;
inline Value& Value::operator=(Value&&) noexcept = default;

inline const Value* Value::get(std::string_view key) const {
  for (const auto& kv : object)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

inline constexpr int kMaxDepth = 64;

// Parses one JSON value; only whitespace may follow it.
Value parse(std::string_view text, std::string_view what);

// The same, reporting the memory the tree takes as it grows: account(+n)
// before n bytes are allocated (a string, an array's or object's larger
// buffer, a key in the duplicate-key check), account(-n) when n bytes are
// freed. A loader bounds what a hostile document can make it allocate by
// throwing from account (safetensors headers: Note [Checkpoint memory budget]).
Value parse(std::string_view text, std::string_view what, const std::function<void(int64_t)>& account);

// The JSON string literal for s (quotes included). s must be valid UTF-8.
std::string quote(std::string_view s);

// Appends code point cp (<= U+10FFFF, not a surrogate) as UTF-8.
void append_utf8(std::string& out, uint32_t cp);

// Whether s is valid UTF-8 (no overlong forms, no surrogates, <= U+10FFFF).
bool valid_utf8(std::string_view s);

}  // namespace ember::serialize::json
