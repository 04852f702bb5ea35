// UTF-8 validation (RFC 3629, Table 3-7 of the Unicode standard).
#include "ember/text/utf8.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include <ember/core/error.h>

namespace ember::text {
namespace {

// The length of the valid sequence starting at s[i], or 0 when it is invalid.
size_t sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  const auto cont = [&](size_t k) { return k < s.size() && (byte(k) & 0xC0) == 0x80; };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (i + 1 >= s.size()) return 0;
    const uint8_t b1 = byte(i + 1);
    // E0 needs A0..BF (no overlong forms); ED needs 80..9F (no surrogates).
    const uint8_t lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    return b1 >= lo && b1 <= hi && cont(i + 2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (i + 1 >= s.size()) return 0;
    const uint8_t b1 = byte(i + 1);
    // F0 needs 90..BF (no overlong forms); F4 needs 80..8F (at most U+10FFFF).
    const uint8_t lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return b1 >= lo && b1 <= hi && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;  // 80..C1 (a continuation or overlong lead) and F5..FF
}

}  // namespace

std::optional<size_t> find_invalid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII runs are the common case: skip them eight bytes at a time.
    while (i + 8 <= s.size()) {
      uint64_t word;
      __builtin_memcpy(&word, s.data() + i, 8);
      if (word & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= s.size()) break;
    const size_t n = sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

void check_utf8(std::string_view s, const char* op) {
  const std::optional<size_t> bad = find_invalid_utf8(s);
  if (!bad) return;
  std::string bytes;
  for (size_t k = *bad; k < s.size() && k < *bad + 4; ++k) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%s0x%02X", k == *bad ? "" : " ", static_cast<unsigned>(static_cast<uint8_t>(s[k])));
    bytes += hex;
  }
  EMBER_FAIL(op, ": invalid UTF-8 at byte ", *bad, " (", bytes, ")");
}

}  // namespace ember::text
