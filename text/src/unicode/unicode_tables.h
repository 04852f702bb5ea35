#pragma once
// The Unicode properties Ember::text's tokenizers need, from tables that
// scripts/gen_text_unicode_tables.py dumps out of Python's unicodedata (so
// Ember and the Python reference tokenizers agree on the Unicode version), and
// UTF-8 <-> code point conversion for text that check_utf8 has accepted.
// Python's str.lower() on these tables is python_lower.h.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ember::text::detail {

// Unicode general categories, in the order the generator numbers them.
enum class Category : uint8_t {
  Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Pc, Pd, Ps, Pe, Pi, Pf, Po,
  Sm, Sc, Sk, So, Zs, Zl, Zp, Cc, Cf, Cs, Co, Cn, Count
};
static_assert(static_cast<int>(Category::Count) == 30, "the generator writes 30 categories");

struct CategoryRange {
  uint32_t first;  // the category holds from here to the next entry's first
  uint8_t category;
};
template <size_t N>
struct CodePointMapping {
  uint32_t code_point;
  uint8_t length;
  uint32_t to[N];
};
struct CombiningClass {
  uint32_t code_point;
  uint8_t value;
};
struct CodePointRange {
  uint32_t first, last;  // inclusive
};

extern const char* const kUnicodeVersion;
extern const CategoryRange kCategoryRanges[];
extern const size_t kCategoryRangeCount;
extern const CodePointMapping<3> kLowerCase[];
extern const size_t kLowerCaseCount;
extern const CodePointMapping<4> kCanonicalDecomposition[];
extern const size_t kCanonicalDecompositionCount;
extern const CombiningClass kCombiningClasses[];
extern const size_t kCombiningClassCount;
// Case_Ignorable, and Cased among the code points that are not Case_Ignorable
// (what str.lower()'s Final_Sigma rule reads); sorted, disjoint ranges.
extern const CodePointRange kCaseIgnorable[];
extern const size_t kCaseIgnorableCount;
extern const CodePointRange kCasedNotIgnorable[];
extern const size_t kCasedNotIgnorableCount;

Category category(char32_t c);
inline bool is_letter(char32_t c) { return category(c) <= Category::Lo; }   // \p{L}
inline bool is_number(char32_t c) { return category(c) >= Category::Nd && category(c) <= Category::No; }  // \p{N}
inline bool is_punctuation(char32_t c) { return category(c) >= Category::Pc && category(c) <= Category::Po; }
// The Unicode White_Space property (what the `regex` module's \s matches).
bool is_white_space(char32_t c);
// The full lower-case mapping of one code point out of context (U+0130 becomes
// two code points; U+03A3 becomes U+03C3: the final-sigma rule needs the
// neighbours, see python_lower.h). nullptr when lower-casing leaves c as is.
const CodePointMapping<3>* lower_case_mapping(char32_t c);
bool is_case_ignorable(char32_t c);
bool is_cased_not_ignorable(char32_t c);
// The canonical decomposition (NFD) of `s`, with combining marks in canonical order.
std::u32string nfd(std::u32string_view s);
uint8_t combining_class(char32_t c);

// Decodes text that is valid UTF-8 (callers run check_utf8 first).
std::u32string decode_utf8(std::string_view s);
// Decodes the code point at s[i] of valid UTF-8 and returns its length in bytes.
size_t decode_utf8_at(std::string_view s, size_t i, char32_t& c);
void append_utf8(char32_t c, std::string& out);
std::string encode_utf8(std::u32string_view s);

}  // namespace ember::text::detail
