// JSON documents as IValue trees, plain values as JSON (ember/serialize/json.h).
#include "ember/serialize/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>

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

// What the memory accounting charges per heap block and per entry of a
// dict's key index (its node and share of the buckets).
constexpr int64_t kBlockOverhead = 16;
constexpr int64_t kIndexEntryBytes = 48 + kBlockOverhead + 3 * sizeof(void*);
// make_shared's block for a str (control block + SharedString), a list's
// vector and a dict.
constexpr int64_t kStringBlockBytes = 16 + sizeof(ember::detail::SharedString) + kBlockOverhead;
constexpr int64_t kListBlockBytes = 16 + sizeof(std::vector<IValue>) + kBlockOverhead;
constexpr int64_t kDictBlockBytes = 16 + sizeof(IDict) + kBlockOverhead;

// Builds the IValue of a document from the cursor's tokens. Recursion is as
// deep as the document's nesting, which the cursor bounds (kMaxDepth).
class TreeBuilder {
 public:
  TreeBuilder(std::string_view text, std::string_view what, const std::function<void(int64_t)>* account = nullptr)
      : in_(text, what), account_(account) {}

  IValue parse_document() {
    IValue v = value();
    in_.finish();
    return v;
  }

 private:
  void account(int64_t bytes) {
    if (account_) (*account_)(bytes);
  }

  IValue value() {
    switch (in_.next_kind()) {
      case 'o': return object();
      case 'a': return array();
      case 's': return string();
      case 'n': {
        const Cursor::Number n = in_.read_any_number();
        return n.is_integer ? IValue(n.integer) : IValue(n.number);
      }
      case 't': return IValue(in_.read_bool());
      case 'z': in_.skip_null(); return IValue();
      case '\0': in_.fail("unexpected end of input");
      default: in_.fail("unexpected character");
    }
  }

  // The decoded string is at most as long as its text up to the closing
  // quote: that much is reserved (and accounted) so that it never grows.
  std::string raw_string() {
    const size_t n = in_.string_extent();
    account(kStringBlockBytes + (n > 15 ? static_cast<int64_t>(n) + 1 + kBlockOverhead : 0));
    std::string s;
    s.reserve(n);
    in_.read_string(s);
    return s;
  }
  IValue string() { return IValue(raw_string()); }

  IValue array() {
    in_.begin_array();
    std::vector<IValue> items;
    while (in_.next_element()) {
      IValue item = value();
      if (items.size() == items.capacity()) {
        const size_t cap = std::max<size_t>(2 * items.capacity(), 1);
        grow(items.capacity() * sizeof(IValue), cap * sizeof(IValue), [&] { items.reserve(cap); });
      }
      items.push_back(std::move(item));
    }
    account(kListBlockBytes);
    return IValue::list(std::move(items));
  }

  IValue object() {
    in_.begin_object();
    IDict dict;
    size_t capacity = 0;
    while (in_.next_key()) {
      IValue key(raw_string());
      if (dict.find(key.to_string())) in_.fail("duplicate key \"" + key.to_string() + "\"");
      in_.end_key();
      IValue item = value();
      if (dict.size() == capacity) {
        const size_t cap = std::max<size_t>(2 * capacity, 1);
        grow(capacity * sizeof(IDict::Item), cap * sizeof(IDict::Item), [&] { dict.reserve(cap); });
        capacity = cap;
      }
      account(kIndexEntryBytes);
      dict.insert(std::move(key), std::move(item));
    }
    account(kDictBlockBytes);
    return IValue::dict(std::move(dict));
  }

  // A container's buffer grows geometrically: the new one is accounted while
  // the old one is still held, then the old one is freed.
  template <class Reserve>
  void grow(size_t old_bytes, size_t new_bytes, Reserve&& reserve) {
    account(static_cast<int64_t>(new_bytes) + kBlockOverhead);
    reserve();
    account(-(old_bytes ? static_cast<int64_t>(old_bytes) + kBlockOverhead : 0));
  }

  Cursor in_;
  const std::function<void(int64_t)>* account_;
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

IValue parse(std::string_view text, std::string_view what) { return TreeBuilder(text, what).parse_document(); }

IValue parse(std::string_view text, std::string_view what, const std::function<void(int64_t)>& account) {
  return TreeBuilder(text, what, &account).parse_document();
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

std::string float_literal(double v) {
  if (std::isnan(v)) return R"({"float": "nan"})";
  if (std::isinf(v)) return v > 0 ? R"({"float": "inf"})" : R"({"float": "-inf"})";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string plain_to_json(const IValue& v, std::string_view who, std::string_view key) {
  switch (v.tag()) {
    case IValue::Tag::None: return "null";
    case IValue::Tag::Bool: return v.to_bool() ? "true" : "false";
    case IValue::Tag::Int: return std::to_string(v.to_int());
    case IValue::Tag::Double: return float_literal(v.to_double());
    case IValue::Tag::String: return quote(v.to_string());
    case IValue::Tag::List:
    case IValue::Tag::Tuple: {
      std::string s = "[";
      const auto& items = v.to_list();
      for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + plain_to_json(items[i], who, key);
      return s + "]";
    }
    case IValue::Tag::Tensor:
    case IValue::Tag::Dict: break;
  }
  EMBER_FAIL(who, ": entry '", key, "' holds a ", v.type_name(),
             "; plain values are None, bool, int, float, str and lists of them");
}

std::string plain_map_to_json(const ValueMap& map, std::string_view who) {
  std::string s = "{";
  bool first = true;
  for (const auto& [key, value] : map) {
    s += (first ? "" : ", ") + quote(key) + ": " + plain_to_json(value, who, key);
    first = false;
  }
  return s + "}";
}

IValue plain_from_json(const IValue& j, std::string_view who, const std::string& where) {
  if (j.is_list()) {
    std::vector<IValue> items;
    items.reserve(j.to_list().size());
    for (size_t i = 0; i < j.to_list().size(); ++i)
      items.push_back(plain_from_json(j.to_list()[i], who, where + "[" + std::to_string(i) + "]"));
    return IValue::list(std::move(items));
  }
  if (!j.is_dict()) return j;
  const IValue* f = j.to_dict().size() == 1 ? j.find("float") : nullptr;
  EMBER_CHECK(f != nullptr, who, ": '", where, "' is an object that is not a float");
  EMBER_CHECK(f->is_string(), who, ": '", where, "' is not a float");
  const std::string& name = f->to_string();
  if (name == "nan") return IValue(std::nan(""));
  if (name == "inf") return IValue(HUGE_VAL);
  EMBER_CHECK(name == "-inf", who, ": '", where, "' holds an unknown float '", name, "'");
  return IValue(-HUGE_VAL);
}

ValueMap plain_map_from_json(const IValue& j, std::string_view who, const std::string& where) {
  EMBER_CHECK(j.is_dict(), who, ": '", where, "' must be a JSON object");
  ValueMap map;
  for (const auto& [key, value] : j.to_dict())
    map[key.to_string()] = plain_from_json(value, who, where + "." + key.to_string());
  return map;
}

}  // namespace ember::serialize::json
