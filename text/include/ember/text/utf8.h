#pragma once
// UTF-8 checks shared by the tokenizers: text reaching a tokenizer must be
// valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF), else an ember::Error naming the operation and the byte offset.
#include <cstddef>
#include <optional>
#include <string_view>

namespace ember::text {

// The byte offset of the first invalid sequence, or nullopt when `s` is valid UTF-8.
std::optional<size_t> find_invalid_utf8(std::string_view s);
inline bool is_valid_utf8(std::string_view s) { return !find_invalid_utf8(s).has_value(); }
// Raises ember::Error "<op>: invalid UTF-8 at byte N (0xXX ...)" when `s` is not valid UTF-8.
void check_utf8(std::string_view s, const char* op);

}  // namespace ember::text
