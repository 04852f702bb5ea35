// Look-ups in the generated Unicode tables (categories, case mapping and case
// properties), NFD (with Hangul's algorithmic decomposition and canonical
// reordering) and UTF-8 conversion.
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

const CodePointMapping<3>* lower_case_mapping(char32_t c) {
  return find_mapping(kLowerCase, kLowerCaseCount, c);
}

namespace {

bool in_ranges(const CodePointRange* table, size_t count, char32_t c) {
  const CodePointRange* end = table + count;
  const CodePointRange* it = std::upper_bound(
      table, end, static_cast<uint32_t>(c), [](uint32_t v, const CodePointRange& r) { return v < r.first; });
  return it != table && c <= (it - 1)->last;
}

}  // namespace

bool is_case_ignorable(char32_t c) { return in_ranges(kCaseIgnorable, kCaseIgnorableCount, c); }
bool is_cased_not_ignorable(char32_t c) { return in_ranges(kCasedNotIgnorable, kCasedNotIgnorableCount, c); }

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

size_t decode_utf8_at(std::string_view s, size_t i, char32_t& c) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  const auto cont = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
  if (b0 < 0x80) { c = b0; return 1; }
  if (b0 < 0xE0) { c = ((b0 & 0x1Fu) << 6) | cont(1); return 2; }
  if (b0 < 0xF0) { c = ((b0 & 0x0Fu) << 12) | (cont(1) << 6) | cont(2); return 3; }
  c = ((b0 & 0x07u) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
  return 4;
}

std::u32string decode_utf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t c;
    i += decode_utf8_at(s, i, c);
    out.push_back(c);
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
