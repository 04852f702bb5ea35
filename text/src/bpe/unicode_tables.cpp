// Look-ups in the generated Unicode tables and UTF-8 conversion.
#include "unicode_tables.h"

#include <algorithm>

namespace ember::text::detail {

Category category(char32_t c) {
  const CategoryRange* end = kCategoryRanges + kCategoryRangeCount;
  const CategoryRange* it = std::upper_bound(
      kCategoryRanges, end, static_cast<uint32_t>(c),
      [](uint32_t v, const CategoryRange& r) { return v < r.first; });
  return static_cast<Category>((it - 1)->category);
}

bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

namespace {

template <size_t N>
const CodePointMapping<N>* find_mapping(const CodePointMapping<N>* table, size_t count, char32_t c) {
  const CodePointMapping<N>* end = table + count;
  const CodePointMapping<N>* it = std::lower_bound(
      table, end, static_cast<uint32_t>(c),
      [](const CodePointMapping<N>& m, uint32_t v) { return m.code_point < v; });
  return it != end && it->code_point == c ? it : nullptr;
}

}  // namespace

void append_lower(char32_t c, std::u32string& out) {
  if (c < 0x80) {
    out.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return;
  }
  if (const auto* m = find_mapping(kLowerCase, kLowerCaseCount, c)) {
    out.append(m->to, m->to + m->length);
  } else {
    out.push_back(c);
  }
}

std::u32string decode_utf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = [&](size_t k) { return static_cast<char32_t>(static_cast<uint8_t>(s[k])); };
    const char32_t b0 = b(i);
    if (b0 < 0x80) {
      out.push_back(b0);
      i += 1;
    } else if (b0 < 0xE0) {
      out.push_back(((b0 & 0x1F) << 6) | (b(i + 1) & 0x3F));
      i += 2;
    } else if (b0 < 0xF0) {
      out.push_back(((b0 & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F));
      i += 3;
    } else {
      out.push_back(((b0 & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12) | ((b(i + 2) & 0x3F) << 6) |
                    (b(i + 3) & 0x3F));
      i += 4;
    }
  }
  return out;
}

void append_utf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string encode_utf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) append_utf8(c, out);
  return out;
}

}  // namespace ember::text::detail
