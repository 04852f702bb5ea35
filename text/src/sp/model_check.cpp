#include "model_check.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include <ember/core/error.h>

namespace ember::text::sp_detail {

// Note [Trusted normalizer tries]
// A model's NormalizerSpec (ModelProto field 3, and the denormalizer, field 5)
// carries precompiled_charsmap (field 2): a little-endian uint32 byte size, a
// darts-clone double array of that many bytes, then NUL-terminated replacement
// strings. libsentencepiece 0.1.97 loads it unchecked and, while normalizing,
// follows the array's offsets and leaf values as indices, so a corrupt model
// reads out of bounds (a crash, found by flipping bytes of a real model). A
// lookup from unit j goes to (j ^ offset(j)) ^ byte for the next byte, and a
// leaf's value at j ^ offset(j) indexes the strings. So, for every node a
// lookup can reach (the root, and each unit whose label is the byte leading to
// it), (j ^ offset) | 0xFF must be inside the array, every
// leaf value inside the strings, and the strings must end with a NUL. Valid
// arrays (darts-clone builds them in blocks of 256 units) always pass.

namespace {

struct Reader {
  std::string_view data;
  size_t pos = 0;

  std::optional<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= data.size()) return std::nullopt;
      const auto byte = static_cast<uint8_t>(data[pos++]);
      v |= uint64_t(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return v;
    }
    return std::nullopt;
  }
};

// Calls on_field(field, bytes) for each length-delimited field of a message;
// false when the wire format is malformed (the library's parser rejects those).
template <class F>
bool for_each_bytes_field(std::string_view message, const F& on_field) {
  Reader r{message};
  while (r.pos < message.size()) {
    const auto key = r.varint();
    if (!key) return false;
    const uint64_t field = *key >> 3;
    switch (*key & 7) {
      case 0:
        if (!r.varint()) return false;
        break;
      case 1:
        if (message.size() - r.pos < 8) return false;
        r.pos += 8;
        break;
      case 5:
        if (message.size() - r.pos < 4) return false;
        r.pos += 4;
        break;
      case 2: {
        const auto len = r.varint();
        if (!len || *len > message.size() - r.pos) return false;
        if (!on_field(field, message.substr(r.pos, *len))) return false;
        r.pos += *len;
        break;
      }
      default:
        return false;  // groups (3, 4) and unknown wire types: never in a model
    }
  }
  return true;
}

uint32_t load_u32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // little-endian, as the library reads it on x86-64
  return v;
}

void check_charsmap(std::string_view blob, const char* what) {
  if (blob.empty()) return;  // no normalization table
  EMBER_CHECK(blob.size() > 4, what, ": the model is corrupt (normalization table of ", blob.size(), " bytes)");
  const uint32_t trie_bytes = load_u32(blob.data());
  EMBER_CHECK(trie_bytes <= blob.size() - 4, what, ": the model is corrupt (normalization trie of ", trie_bytes,
              " bytes in a table of ", blob.size(), ")");
  const size_t units = trie_bytes / 4;
  EMBER_CHECK(units > 0, what, ": the model is corrupt (empty normalization trie)");
  const std::string_view strings = blob.substr(4 + trie_bytes);
  EMBER_CHECK(!strings.empty() && strings.back() == '\0', what,
              ": the model is corrupt (normalization strings not NUL-terminated)");
  const char* array = blob.data() + 4;
  auto unit_at = [&](size_t j) { return load_u32(array + 4 * j); };
  auto base_of = [](size_t j, uint32_t unit) { return j ^ ((unit >> 10) << ((unit & (1U << 9)) >> 6)); };
  // The nodes a lookup can reach: the root, then each child whose label is
  // the byte that leads to it.
  std::vector<char> seen(units, 0);
  std::vector<size_t> pending{0};
  seen[0] = 1;
  while (!pending.empty()) {
    const size_t j = pending.back();
    pending.pop_back();
    const uint32_t unit = unit_at(j);
    const size_t base = base_of(j, unit);
    EMBER_CHECK((base | 0xFF) < units, what, ": the model is corrupt (normalization trie node ", j,
                " points outside its ", units, " units)");
    if ((unit >> 8) & 1) {  // has a leaf: its value unit sits at base
      const uint32_t value = unit_at(base) & 0x7FFFFFFFU;
      EMBER_CHECK(value < strings.size(), what, ": the model is corrupt (normalization trie value ", value,
                  " outside its ", strings.size(), " bytes of strings)");
    }
    for (size_t c = 0; c < 256; ++c) {
      const size_t child = base ^ c;
      if (!seen[child] && (unit_at(child) & 0x800000FFU) == c) {
        seen[child] = 1;
        pending.push_back(child);
      }
    }
  }
}

}  // namespace

void check_model_tables(std::string_view serialized_model, const char* what) {
  const bool well_formed = for_each_bytes_field(serialized_model, [&](uint64_t field, std::string_view spec) {
    if (field != 3 && field != 5) return true;  // normalizer_spec, denormalizer_spec
    return for_each_bytes_field(spec, [&](uint64_t f, std::string_view bytes) {
      if (f == 2) check_charsmap(bytes, what);  // precompiled_charsmap
      return true;
    });
  });
  EMBER_CHECK(well_formed, what, ": the model is corrupt (not a serialized ModelProto)");
}

}  // namespace ember::text::sp_detail
