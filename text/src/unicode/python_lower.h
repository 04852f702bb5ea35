#pragma once
// Python's str.lower(), exactly: the full lower-case mapping of each code point
// (U+0130 becomes "i" + U+0307) and the Final_Sigma rule (Note [Final sigma]).
// basic_english, CLIP and BERT lower-case through it, as their Python originals
// call str.lower().
#include <string>
#include <string_view>

namespace ember::text::detail {

std::u32string python_lower(std::u32string_view s);
// The same on valid UTF-8 (callers run check_utf8 first); ASCII stays on a fast path.
std::string python_lower_utf8(std::string_view s);

}  // namespace ember::text::detail
