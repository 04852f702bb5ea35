// The JSON lexer (ember/serialize/json_cursor.h).
#include "ember/serialize/json_cursor.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "ember/core/error.h"
#include "ember/serialize/json.h"

namespace ember::serialize::json {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

void Cursor::fail(std::string_view message) const {
  EMBER_FAIL(what_, ": invalid JSON at byte ", pos_, ": ", message);
}

void Cursor::skip_ws() {
  while (pos_ < s_.size()) {
    const char c = s_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
    ++pos_;
  }
}

char Cursor::peek() {
  skip_ws();
  return pos_ < s_.size() ? s_[pos_] : '\0';
}

void Cursor::expect(char c, std::string_view message) {
  if (peek() != c) fail(message);
  ++pos_;
}

void Cursor::begin_object() {
  expect('{', "expected an object");
  if (++depth_ > kMaxDepth) fail("nesting too deep");
  started_ &= ~(uint64_t{1} << (depth_ - 1));
}

void Cursor::begin_array() {
  expect('[', "expected an array");
  if (++depth_ > kMaxDepth) fail("nesting too deep");
  started_ &= ~(uint64_t{1} << (depth_ - 1));
}

bool Cursor::after_value(char close) {
  const uint64_t bit = uint64_t{1} << (depth_ - 1);
  const char c = peek();
  if (!(started_ & bit)) {
    if (c == close) {
      ++pos_;
      --depth_;
      return false;
    }
    started_ |= bit;
    return true;
  }
  if (c == ',') {
    ++pos_;
    return true;
  }
  if (c == close) {
    ++pos_;
    --depth_;
    return false;
  }
  fail(close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

bool Cursor::next_member(std::string& key) {
  if (!next_key()) return false;
  key = read_string();
  end_key();
  return true;
}

bool Cursor::next_key() {
  if (!after_value('}')) return false;
  if (peek() != '"') fail("expected a string key");
  return true;
}

void Cursor::end_key() { expect(':', "expected ':'"); }

bool Cursor::next_element() { return after_value(']'); }

uint32_t Cursor::parse_hex4() {
  if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
  uint32_t cp = 0;
  for (int k = 0; k < 4; ++k) {
    const char c = s_[pos_++];
    cp <<= 4;
    if (c >= '0' && c <= '9')
      cp |= static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      cp |= static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      cp |= static_cast<uint32_t>(c - 'A' + 10);
    else
      fail("invalid \\u escape");
  }
  return cp;
}

std::string Cursor::read_string() {
  std::string out;
  read_string(out);
  return out;
}

size_t Cursor::string_extent() {
  if (peek() != '"') fail("expected a string");
  size_t end = pos_ + 1;
  while (end < s_.size() && s_[end] != '"') end += s_[end] == '\\' ? 2 : 1;
  return std::min(end, s_.size()) - (pos_ + 1);
}

char Cursor::next_kind() {
  switch (peek()) {
    case '{': return 'o';
    case '[': return 'a';
    case '"': return 's';
    case 't':
    case 'f': return 't';
    case 'n': return 'z';
    case '\0': return pos_ >= s_.size() ? '\0' : '?';
    default: return peek() == '-' || is_digit(peek()) ? 'n' : '?';
  }
}

Cursor::Number Cursor::read_any_number() {
  const char c = peek();
  if (c != '-' && !is_digit(c)) fail("expected a number");
  const size_t start = pos_;
  skip_number();
  const char* first = s_.data() + start;
  const char* last = s_.data() + pos_;
  Number n;
  if (std::find_first_of(first, last, ".eE", ".eE" + 3) == last) {
    auto [p, ec] = std::from_chars(first, last, n.integer);
    n.is_integer = ec == std::errc() && p == last;
  }
  if (n.is_integer) {
    n.number = static_cast<double>(n.integer);
    return n;
  }
  auto [p, ec] = std::from_chars(first, last, n.number);
  // Out of range: from_chars leaves the value unset; Python gives inf, and so do we.
  if (ec == std::errc::result_out_of_range)
    n.number = *first == '-' ? -HUGE_VAL : HUGE_VAL;
  else if (ec != std::errc() || p != last)
    fail("invalid number");
  return n;
}

void Cursor::read_string(std::string& out) {
  if (peek() != '"') fail("expected a string");
  ++pos_;
  while (true) {
    // Copy the run of plain characters at once.
    size_t run = pos_;
    while (run < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[run]);
      if (c == '"' || c == '\\' || c < 0x20) break;
      ++run;
    }
    const std::string_view plain = s_.substr(pos_, run - pos_);
    if (!valid_utf8(plain)) fail("invalid UTF-8 in string");
    out.append(plain);
    pos_ = run;
    if (pos_ >= s_.size()) fail("unterminated string");
    const char c = s_[pos_];
    if (c == '"') {
      ++pos_;
      return;
    }
    if (c != '\\') fail("control character in string");
    ++pos_;
    if (pos_ >= s_.size()) fail("unterminated string");
    const char e = s_[pos_++];
    switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = parse_hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (s_.substr(pos_, 2) != "\\u") fail("unpaired high surrogate");
          pos_ += 2;
          const uint32_t lo = parse_hex4();
          if (lo < 0xDC00 || lo > 0xDFFF) fail("unpaired high surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        append_utf8(out, cp);
        break;
      }
      default:
        fail("invalid escape");
    }
  }
}

void Cursor::skip_string() {
  ++pos_;  // opening quote
  while (true) {
    while (pos_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"' || c == '\\' || c < 0x20) break;
      ++pos_;
    }
    if (pos_ >= s_.size()) fail("unterminated string");
    const char c = s_[pos_];
    if (c == '"') {
      ++pos_;
      return;
    }
    if (c != '\\') fail("control character in string");
    ++pos_;
    if (pos_ >= s_.size()) fail("unterminated string");
    const char e = s_[pos_++];
    if (e == 'u')
      parse_hex4();
    else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' &&
             e != 't')
      fail("invalid escape");
  }
}

void Cursor::skip_number() {
  auto at = [&] { return pos_ < s_.size() ? s_[pos_] : '\0'; };
  if (at() == '-') ++pos_;
  if (at() == '0') {
    ++pos_;
  } else if (at() >= '1' && at() <= '9') {
    while (is_digit(at())) ++pos_;
  } else {
    fail("invalid number");
  }
  if (at() == '.') {
    ++pos_;
    if (!is_digit(at())) fail("invalid number");
    while (is_digit(at())) ++pos_;
  }
  if (at() == 'e' || at() == 'E') {
    ++pos_;
    if (at() == '+' || at() == '-') ++pos_;
    if (!is_digit(at())) fail("invalid number");
    while (is_digit(at())) ++pos_;
  }
}

double Cursor::read_number() {
  const char c = peek();
  if (c != '-' && !is_digit(c)) fail("expected a number");
  const size_t start = pos_;
  skip_number();
  double v = 0;
  auto [p, ec] = std::from_chars(s_.data() + start, s_.data() + pos_, v);
  // Out of range: from_chars leaves v unset; Python gives inf, and so do we.
  if (ec == std::errc::result_out_of_range)
    v = s_[start] == '-' ? -HUGE_VAL : HUGE_VAL;
  else if (ec != std::errc() || p != s_.data() + pos_)
    fail("invalid number");
  return v;
}

int64_t Cursor::read_integer() {
  const char c = peek();
  if (c != '-' && !is_digit(c)) fail("expected an integer");
  const size_t start = pos_;
  skip_number();
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s_.data() + start, s_.data() + pos_, v);
  if (ec == std::errc() && p == s_.data() + pos_) return v;
  // 3.0 or 1e3: accepted when integral and within int64.
  double d = 0;
  auto [pd, ecd] = std::from_chars(s_.data() + start, s_.data() + pos_, d);
  if (ecd == std::errc() && pd == s_.data() + pos_ && std::floor(d) == d && d >= -9.2e18 &&
      d <= 9.2e18)
    return static_cast<int64_t>(d);
  pos_ = start;
  fail("expected an integer");
}

void Cursor::expect_literal(std::string_view lit) {
  if (s_.substr(pos_, lit.size()) != lit) fail("invalid literal");
  pos_ += lit.size();
}

bool Cursor::read_bool() {
  const char c = peek();
  if (c == 't') {
    expect_literal("true");
    return true;
  }
  if (c == 'f') {
    expect_literal("false");
    return false;
  }
  fail("expected true or false");
}

bool Cursor::skip_null() {
  if (peek() != 'n') return false;
  expect_literal("null");
  return true;
}

std::string_view Cursor::skip_value() {
  peek();  // skip whitespace
  const size_t start = pos_;
  // Containers are walked with an explicit stack of their closing brackets and
  // whether they expect a key next; no recursion.
  std::vector<char> stack;
  bool expect_key = false;
  do {
    char c = peek();
    if (expect_key) {
      if (c != '"') fail("expected a string key");
      skip_string();
      expect(':', "expected ':'");
      expect_key = false;
      c = peek();
    }
    switch (c) {
      case '{':
      case '[':
        ++pos_;
        if (depth_ + static_cast<int>(stack.size()) + 1 > kMaxDepth) fail("nesting too deep");
        stack.push_back(c == '{' ? '}' : ']');
        if (peek() == stack.back()) {  // empty container
          ++pos_;
          stack.pop_back();
          break;
        }
        expect_key = c == '{';
        continue;  // the first element follows
      case '"':
        skip_string();
        break;
      case 't':
        expect_literal("true");
        break;
      case 'f':
        expect_literal("false");
        break;
      case 'n':
        expect_literal("null");
        break;
      case '\0':
        if (pos_ >= s_.size()) fail("unexpected end of input");
        fail("unexpected character");
      default:
        if (c == '-' || is_digit(c))
          skip_number();
        else
          fail("unexpected character");
    }
    // After a complete value: close containers or move to the next element.
    while (!stack.empty()) {
      const char n = peek();
      if (n == ',') {
        ++pos_;
        expect_key = stack.back() == '}';
        break;
      }
      if (n == stack.back()) {
        ++pos_;
        stack.pop_back();
        continue;
      }
      fail(stack.back() == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  } while (!stack.empty());
  return s_.substr(start, pos_ - start);
}

void Cursor::finish() {
  if (peek() != '\0' || pos_ < s_.size()) fail("unexpected data after the JSON value");
}

}  // namespace ember::serialize::json
