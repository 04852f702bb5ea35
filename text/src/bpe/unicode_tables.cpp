// Look-ups in the generated Unicode tables, NFD (with Hangul's algorithmic
// decomposition and canonical reordering) and UTF-8 conversion.
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

// Hangul syllables decompose by arithmetic (Unicode 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kVCount = 21, kTCount = 28, kSCount = 19 * kVCount * kTCount;

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

uint8_t combining_class(char32_t c) {
  const CombiningClass* end = kCombiningClasses + kCombiningClassCount;
  const CombiningClass* it = std::lower_bound(
      kCombiningClasses, end, static_cast<uint32_t>(c),
      [](const CombiningClass& m, uint32_t v) { return m.code_point < v; });
  return it != end && it->code_point == c ? it->value : 0;
}

std::u32string nfd(std::u32string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c >= kSBase && c < kSBase + kSCount) {
      const char32_t index = c - kSBase;
      out.push_back(kLBase + index / (kVCount * kTCount));
      out.push_back(kVBase + (index % (kVCount * kTCount)) / kTCount);
      if (index % kTCount != 0) out.push_back(kTBase + index % kTCount);
    } else if (const auto* m = c < 0xC0 ? nullptr
                                        : find_mapping(kCanonicalDecomposition,
                                                       kCanonicalDecompositionCount, c)) {
      out.append(m->to, m->to + m->length);  // the table holds full (recursive) decompositions
    } else {
      out.push_back(c);
    }
  }
  // Canonical ordering: a stable sort of each run of non-starters by combining class.
  for (size_t i = 0; i < out.size();) {
    if (combining_class(out[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < out.size() && combining_class(out[j]) != 0) ++j;
    std::stable_sort(out.begin() + i, out.begin() + j, [](char32_t a, char32_t b) {
      return combining_class(a) < combining_class(b);
    });
    i = j;
  }
  return out;
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
