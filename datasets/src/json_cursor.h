#pragma once
// A pull reader over JSON text: the caller walks objects and arrays member by
// member and reads the values it wants into its own structs, skipping the rest
// without building anything. COCO's annotation files (hundreds of MB, mostly
// polygon coordinates) are read this way: a document tree (serialize/json.h)
// of instances_train2017.json would take several GB (see docs/datasets.md).
//
// Strict RFC 8259 grammar, as serialize/json.h (no comments, trailing commas,
// NaN or leading zeros; control characters in strings are errors), with two
// differences: a key repeated in an object is allowed (the caller sees both;
// Python's json keeps the last), and strings are checked for valid UTF-8 only
// when they are read, not when they are skipped. Nesting deeper than 64 levels
// is an error. Errors are ember::Error naming `what` and the byte offset.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ember::datasets::detail {

class JsonCursor {
 public:
  static constexpr int kMaxDepth = 64;

  JsonCursor(std::string_view text, std::string_view what) : s_(text), what_(what) {}

  // The next value's first character after whitespace ('\0' at the end).
  char peek();
  size_t offset() const { return pos_; }

  // Objects: begin_object(), then `while (next_member(key)) { read the value }`.
  void begin_object();
  bool next_member(std::string& key);
  // Arrays: begin_array(), then `while (next_element()) { read the value }`.
  void begin_array();
  bool next_element();

  std::string read_string();
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

}  // namespace ember::datasets::detail
