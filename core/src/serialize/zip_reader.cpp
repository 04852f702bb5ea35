#include "serialize/zip_reader.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "ember/core/error.h"

namespace ember::serialize {

namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;
constexpr size_t kEndSize = 22, kEnd64Size = 56, kLocatorSize = 20, kCentralSize = 46, kLocalSize = 30;

uint16_t le16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t le64(const unsigned char* p) { return le32(p) | (static_cast<uint64_t>(le32(p + 4)) << 32); }

// Slice-by-8 tables for the reflected polynomial 0xEDB88320.
const std::array<std::array<uint32_t, 256>, 8>& crc_tables() {
  static const auto tables = [] {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    return t;
  }();
  return tables;
}

}  // namespace

uint32_t crc32(const void* data, size_t n, uint32_t crc) {
  const auto& t = crc_tables();
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (n >= 8) {
    const uint32_t a = c ^ le32(p);
    const uint32_t b = le32(p + 4);
    c = t[7][a & 0xFF] ^ t[6][(a >> 8) & 0xFF] ^ t[5][(a >> 16) & 0xFF] ^ t[4][a >> 24] ^
        t[3][b & 0xFF] ^ t[2][(b >> 8) & 0xFF] ^ t[1][(b >> 16) & 0xFF] ^ t[0][b >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = t[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}

ZipReader::ZipReader(const ByteSource& src, std::string what) : src_(src), what_(std::move(what)) {
  const uint64_t size = src.size();
  EMBER_CHECK(size >= kEndSize, what_, ": file too small to be a zip archive (", size, " bytes)");
  // The end-of-central-directory record is in the last 22 + 65535 bytes
  // (its trailing comment is at most 65535 bytes).
  const uint64_t tail_len = std::min<uint64_t>(size, kEndSize + 0xFFFF);
  const uint64_t tail_start = size - tail_len;
  std::string tail = src.read_string(tail_start, static_cast<size_t>(tail_len), "zip end record");
  const auto* t = reinterpret_cast<const unsigned char*>(tail.data());
  int64_t end_pos = -1;
  for (int64_t i = static_cast<int64_t>(tail_len - kEndSize); i >= 0; --i) {
    if (le32(t + i) == kEndSig && i + kEndSize + le16(t + i + 20) == tail_len) {
      end_pos = i;
      break;
    }
  }
  EMBER_CHECK(end_pos >= 0, what_,
              ": no zip end-of-central-directory record (truncated or not a zip archive)");
  const unsigned char* e = t + end_pos;
  const uint64_t end_offset = tail_start + static_cast<uint64_t>(end_pos);
  EMBER_CHECK(le16(e + 4) == 0 && le16(e + 6) == 0, what_, ": multi-disk zip archives are not supported");
  uint64_t count = le16(e + 10);
  uint64_t cd_size = le32(e + 12);
  uint64_t cd_offset = le32(e + 16);
  uint64_t cd_limit = end_offset;  // the central directory ends before this
  if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
    // ZIP64: a locator right before the end record points at the ZIP64 end record.
    EMBER_CHECK(end_offset >= kLocatorSize, what_, ": missing ZIP64 end-of-central-directory locator");
    unsigned char loc[kLocatorSize];
    src.read(end_offset - kLocatorSize, loc, kLocatorSize, "ZIP64 locator");
    EMBER_CHECK(le32(loc) == kEnd64LocatorSig, what_,
                ": missing ZIP64 end-of-central-directory locator");
    const uint64_t end64 = le64(loc + 8);
    EMBER_CHECK(end64 <= end_offset - kLocatorSize && end_offset - kLocatorSize - end64 >= kEnd64Size,
                what_, ": ZIP64 end record offset ", end64, " is out of range");
    unsigned char r[kEnd64Size];
    src.read(end64, r, kEnd64Size, "ZIP64 end record");
    EMBER_CHECK(le32(r) == kEnd64Sig, what_, ": bad ZIP64 end-of-central-directory signature");
    count = le64(r + 32);
    cd_size = le64(r + 40);
    cd_offset = le64(r + 48);
    cd_limit = end64;
  }
  EMBER_CHECK(cd_offset <= cd_limit && cd_size <= cd_limit - cd_offset, what_,
              ": central directory [", cd_offset, ", +", cd_size, ") is out of range");
  EMBER_CHECK(count <= cd_size / kCentralSize, what_, ": central directory of ", cd_size,
              " bytes cannot hold ", count, " entries");
  cd_offset_ = cd_offset;
  const std::string cd = src.read_string(cd_offset, static_cast<size_t>(cd_size), "central directory");
  const auto* c = reinterpret_cast<const unsigned char*>(cd.data());
  size_t pos = 0;
  entries_.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    EMBER_CHECK(cd.size() - pos >= kCentralSize && le32(c + pos) == kCentralSig, what_,
                ": corrupt central directory entry ", i);
    const unsigned char* h = c + pos;
    Entry entry;
    entry.flags = le16(h + 8);
    entry.method = le16(h + 10);
    entry.crc = le32(h + 16);
    uint64_t csize = le32(h + 20);
    uint64_t usize = le32(h + 24);
    const size_t name_len = le16(h + 28), extra_len = le16(h + 30), comment_len = le16(h + 32);
    entry.local_offset = le32(h + 42);
    EMBER_CHECK(cd.size() - pos - kCentralSize >= name_len + extra_len + comment_len, what_,
                ": corrupt central directory entry ", i);
    entry.name.assign(cd.data() + pos + kCentralSize, name_len);
    // ZIP64 extended information: 8-byte values for the fields saturated at 0xFFFFFFFF.
    const unsigned char* x = h + kCentralSize + name_len;
    for (size_t k = 0; k + 4 <= extra_len;) {
      const uint16_t id = le16(x + k), len = le16(x + k + 2);
      EMBER_CHECK(k + 4 + len <= extra_len, what_, ": corrupt extra field in entry '", entry.name, "'");
      if (id == 0x0001) {
        const unsigned char* z = x + k + 4;
        size_t left = len;
        auto take = [&](uint64_t& field) {
          if (field != 0xFFFFFFFF) return;
          EMBER_CHECK(left >= 8, what_, ": corrupt ZIP64 field in entry '", entry.name, "'");
          field = le64(z);
          z += 8;
          left -= 8;
        };
        take(usize);
        take(csize);
        take(entry.local_offset);
      }
      k += 4 + len;
    }
    entry.size = usize;
    EMBER_CHECK(entry.method != 0 || csize == usize, what_, ": entry '", entry.name,
                "' is stored with different compressed and uncompressed sizes");
    auto [it, fresh] = index_.emplace(entry.name, entries_.size());
    EMBER_CHECK(fresh, what_, ": duplicate entry '", entry.name, "'");
    entries_.push_back(std::move(entry));
    pos += kCentralSize + name_len + extra_len + comment_len;
  }
}

const ZipReader::Entry* ZipReader::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

uint64_t ZipReader::data_offset(const Entry& e) const {
  EMBER_CHECK((e.flags & 1) == 0, what_, ": entry '", e.name, "' is encrypted");
  EMBER_CHECK(e.method == 0, what_, ": entry '", e.name, "' is compressed (method ", e.method,
              "); torch.save writes uncompressed archives: re-create the file with torch.save");
  EMBER_CHECK(e.local_offset <= cd_offset_ && cd_offset_ - e.local_offset >= kLocalSize, what_,
              ": entry '", e.name, "' has a local header offset out of range");
  unsigned char h[kLocalSize];
  src_.read(e.local_offset, h, kLocalSize, "zip local header");
  EMBER_CHECK(le32(h) == kLocalSig, what_, ": bad local header signature for entry '", e.name, "'");
  const uint64_t name_len = le16(h + 26), extra_len = le16(h + 28);
  EMBER_CHECK(name_len == e.name.size() &&
                  src_.read_string(e.local_offset + kLocalSize, name_len, "zip entry name") == e.name,
              what_, ": local header name does not match the central directory for '", e.name, "'");
  const uint64_t data = e.local_offset + kLocalSize + name_len + extra_len;
  EMBER_CHECK(data <= cd_offset_ && e.size <= cd_offset_ - data, what_, ": entry '", e.name,
              "' (", e.size, " bytes at ", data, ") runs past the start of the central directory");
  return data;
}

std::string ZipReader::read(const Entry& e) const {
  const uint64_t off = data_offset(e);
  std::string out = src_.read_string(off, static_cast<size_t>(e.size), "zip entry");
  EMBER_CHECK(crc32(out.data(), out.size()) == e.crc, what_, ": CRC-32 mismatch in entry '", e.name,
              "' (corrupted file)");
  return out;
}

void ZipReader::read_into(const Entry& e, void* dst) const {
  const uint64_t off = data_offset(e);
  src_.read(off, dst, static_cast<size_t>(e.size), "zip entry");
  EMBER_CHECK(crc32(dst, static_cast<size_t>(e.size)) == e.crc, what_, ": CRC-32 mismatch in entry '",
              e.name, "' (corrupted file)");
}

}  // namespace ember::serialize
