#pragma once
// Ember's one JSON lexer: a pull reader over JSON text. The caller walks
// objects and arrays member by member and reads the values it wants into its
// own structs, skipping the rest without building anything. Two readers use
// it: serialize::json::parse, which builds the IValue tree of a document (the
// safetensors header, optimizer state, saved transforms), and COCO's
// annotation reader (hundreds of MB, mostly polygon coordinates), for which a
// document tree of instances_train2017.json would take several GB (see
// docs/datasets.md).
//
// Strict RFC 8259 grammar (no comments, trailing commas, NaN or leading
// zeros; control characters in strings are errors). The cursor passes a key
// repeated in an object on (the caller sees both; json::parse refuses it,
// Python's json keeps the last), and checks strings for valid UTF-8 when they
// are read, not when they are skipped. Nesting deeper than kMaxDepth (64)
// levels is an error. Errors are ember::Error naming `what` and the byte
// offset: "<what>: invalid JSON at byte <n>: <message>".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ember::serialize::json {

class Cursor {
 public:
  static constexpr int kMaxDepth = 64;

  Cursor(std::string_view text, std::string_view what) : s_(text), what_(what) {}

  // The next value's first character after whitespace ('\0' at the end).
  char peek();
  size_t offset() const { return pos_; }

  // Objects: begin_object(), then `while (next_member(key)) { read the value }`.
  void begin_object();
  bool next_member(std::string& key);
  // The same in two steps, for a caller that reads the key itself (with
  // string_extent and read_string): next_key() stops before the key,
  // end_key() consumes the ':' after it.
  bool next_key();
  void end_key();
  // Arrays: begin_array(), then `while (next_element()) { read the value }`.
  void begin_array();
  bool next_element();

  std::string read_string();
  // The same, appending to out (a caller that reserved room: see string_extent).
  void read_string(std::string& out);
  // When the next value is a string: an upper bound of its decoded length
  // (its text up to the closing quote), without consuming it.
  size_t string_extent();
  // The next value's kind, from its first character: 'o' object, 'a' array,
  // 's' string, 'n' number, 't' true or false, 'z' null; '\0' at the end,
  // '?' for anything else.
  char next_kind();
  // A number as written: is_integer when it has no fraction or exponent and
  // fits in int64 (then `integer` holds it); `number` always holds its value.
  struct Number {
    bool is_integer = false;
    int64_t integer = 0;
    double number = 0;
  };
  Number read_any_number();
  int depth() const { return depth_; }
  double read_number();
  // A number that is an integer (a fraction part of zeros is allowed: 3.0).
  int64_t read_integer();
  bool read_bool();
  // True (and consumed) when the next value is null.
  bool skip_null();
  // Skips one value of any kind, checking its grammar; returns its text.
  std::string_view skip_value();
  // After the top-level value: only whitespace may remain.
  void finish();

  [[noreturn]] void fail(std::string_view message) const;

 private:
  void skip_ws();
  void expect(char c, std::string_view message);
  void skip_string();
  void skip_number();
  void expect_literal(std::string_view lit);
  uint32_t parse_hex4();
  // After a value inside a container: consumes ',' (true) or the closing
  // bracket (false).
  bool after_value(char close);

  std::string_view s_;
  std::string_view what_;
  size_t pos_ = 0;
  int depth_ = 0;
  // Per open container, whether its first element was seen (bit per depth).
  uint64_t started_ = 0;
};

}  // namespace ember::serialize::json
