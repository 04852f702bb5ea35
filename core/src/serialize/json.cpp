#include "ember/serialize/json.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

#include "ember/core/error.h"

namespace ember::serialize::json {

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is invalid.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}


// What the memory accounting charges per heap block and per key of the
// duplicate-key set (its node and share of the buckets).
constexpr int64_t kBlockOverhead = 16;
constexpr int64_t kSetEntryBytes = 48 + kBlockOverhead + 3 * sizeof(void*);

class Parser {
 public:
  Parser(std::string_view text, std::string_view what, const std::function<void(int64_t)>* account = nullptr)
      : s_(text), what_(what), account_(account) {}

  Value parse_document() {
    skip_ws();
    Value v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected data after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(std::string_view message) const {
    EMBER_FAIL(what_, ": invalid JSON at byte ", pos_, ": ", message);
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void account(int64_t bytes) {
    if (account_) (*account_)(bytes);
  }
  // Grows a container's buffer geometrically before a push_back, accounting
  // the new buffer while the old one is still held, then freeing the old one.
  template <class V>
  void make_room(V& v) {
    if (v.size() < v.capacity()) return;
    const size_t cap = std::max<size_t>(2 * v.capacity(), 1);
    const int64_t old = v.capacity() ? static_cast<int64_t>(v.capacity() * sizeof(v[0])) + kBlockOverhead : 0;
    account(static_cast<int64_t>(cap * sizeof(v[0])) + kBlockOverhead);
    v.reserve(cap);
    account(-old);
  }

  void expect_literal(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) != lit) fail("invalid literal");
    pos_ += lit.size();
  }

  Value parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    if (at_end()) fail("unexpected end of input");
    Value v;
    switch (peek()) {
      case '{': parse_object(v, depth); break;
      case '[': parse_array(v, depth); break;
      case '"':
        v.kind = Value::Kind::String;
        v.string = parse_string();
        break;
      case 't':
        expect_literal("true");
        v.kind = Value::Kind::Bool;
        v.boolean = true;
        break;
      case 'f':
        expect_literal("false");
        v.kind = Value::Kind::Bool;
        break;
      case 'n':
        expect_literal("null");
        break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) parse_number(v);
        else fail("unexpected character");
    }
    return v;
  }

  void parse_object(Value& v, int depth) {
    v.kind = Value::Kind::Object;
    ++pos_;  // '{'
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    std::unordered_set<std::string> seen;
    int64_t seen_bytes = 0;
    struct Release {  // the duplicate-key set is freed when the object is done
      Parser& p;
      int64_t& bytes;
      ~Release() { p.account(-bytes); }
    } release{*this, seen_bytes};
    while (true) {
      skip_ws();
      if (peek() != '"') fail("expected a string key");
      std::string key = parse_string();
      const int64_t key_bytes = kSetEntryBytes + string_heap_bytes(key.size());
      account(key_bytes);
      seen_bytes += key_bytes;
      if (!seen.insert(key).second) fail("duplicate key \"" + key + "\"");
      skip_ws();
      if (peek() != ':') fail("expected ':'");
      ++pos_;
      skip_ws();
      Value item = parse_value(depth + 1);
      make_room(v.object);
      v.object.emplace_back(std::move(key), std::move(item));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return;
      }
      fail("expected ',' or '}'");
    }
  }

  void parse_array(Value& v, int depth) {
    v.kind = Value::Kind::Array;
    ++pos_;  // '['
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      skip_ws();
      Value item = parse_value(depth + 1);
      make_room(v.array);
      v.array.push_back(std::move(item));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail("expected ',' or ']'");
    }
  }

  uint32_t parse_hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    uint32_t cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') cp |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') cp |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') cp |= static_cast<uint32_t>(c - 'A' + 10);
      else fail("invalid \\u escape");
    }
    return cp;
  }

  static int64_t string_heap_bytes(size_t n) {
    return n > 15 ? static_cast<int64_t>(n) + 1 + kBlockOverhead : 0;
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    if (account_) {
      // The decoded string is at most as long as its text up to the closing
      // quote: reserve that (accounted) so that it never grows.
      size_t end = pos_;
      while (end < s_.size() && s_[end] != '"') end += s_[end] == '\\' ? 2 : 1;
      const size_t n = std::min(end, s_.size()) - pos_;
      account(string_heap_bytes(n));
      out.reserve(n);
    }
    while (true) {
      if (at_end()) fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("control character in string");
      if (c == '\\') {
        ++pos_;
        if (at_end()) fail("unterminated string");
        const char e = s_[pos_++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
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
          default: fail("invalid escape");
        }
        continue;
      }
      const size_t n = utf8_sequence(s_, pos_);
      if (n == 0) fail("invalid UTF-8 in string");
      out.append(s_.substr(pos_, n));
      pos_ += n;
    }
  }

  void parse_number(Value& v) {
    v.kind = Value::Kind::Number;
    const size_t start = pos_;
    bool integral = true;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("invalid number");
    }
    if (peek() == '.') {
      integral = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("invalid number");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("invalid number");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (integral) {
      auto [p, ec] = std::from_chars(first, last, v.integer);
      v.is_integer = ec == std::errc() && p == last;
    }
    auto [p, ec] = std::from_chars(first, last, v.number);
    if (ec == std::errc::invalid_argument) fail("invalid number");
    if (v.is_integer) v.number = static_cast<double>(v.integer);
  }

  std::string_view s_;
  std::string_view what_;
  const std::function<void(int64_t)>* account_;
  size_t pos_ = 0;
};

}  // namespace

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

Value parse(std::string_view text, std::string_view what) { return Parser(text, what).parse_document(); }

Value parse(std::string_view text, std::string_view what, const std::function<void(int64_t)>& account) {
  return Parser(text, what, &account).parse_document();
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string quote(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace ember::serialize::json
