#include "serialize/zip_reader.h"

#include <zlib.h>

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

ZipReader::ZipReader(const ByteSource& src, std::string what, MemoryBudget* budget)
    : src_(src), what_(std::move(what)), budget_(budget) {
  const uint64_t size = src.size();
  auto charge = [&](uint64_t bytes, const char* item) {
    if (budget_) budget_->charge(bytes, item);
  };
  EMBER_CHECK(size >= kEndSize, what_, ": file too small to be a zip archive (", size, " bytes)");
  // The end-of-central-directory record is in the last 22 + 65535 bytes
  // (its trailing comment is at most 65535 bytes).
  const uint64_t tail_len = std::min<uint64_t>(size, kEndSize + 0xFFFF);
  const uint64_t tail_start = size - tail_len;
  charge(tail_len + kHeapBlockOverhead, "the zip end record");
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
  const uint64_t disk_count16 = le16(e + 8);
  uint64_t count = le16(e + 10);
  uint64_t cd_size = le32(e + 12);
  uint64_t cd_offset = le32(e + 16);
  uint64_t cd_limit = end_offset;  // the central directory ends before this
  // Values of 0xFFFF / 0xFFFFFFFF defer to the ZIP64 end record; any other
  // value must agree with it.
  const bool zip64 = count == 0xFFFF || disk_count16 == 0xFFFF || cd_size == 0xFFFFFFFF ||
                     cd_offset == 0xFFFFFFFF;
  EMBER_CHECK(zip64 || disk_count16 == count, what_, ": zip end record counts ", disk_count16,
              " entries on its disk but ", count, " in total");
  tail = {};
  if (budget_) budget_->release(tail_len + kHeapBlockOverhead);
  if (zip64) {
    // ZIP64: a locator right before the end record points at the ZIP64 end record.
    const char* why = count == 0xFFFF || disk_count16 == 0xFFFF ? "entry count 65535"
                      : cd_size == 0xFFFFFFFF                    ? "central directory size 0xFFFFFFFF"
                                                                 : "central directory offset 0xFFFFFFFF";
    unsigned char loc[kLocatorSize] = {};
    if (end_offset >= kLocatorSize) src.read(end_offset - kLocatorSize, loc, kLocatorSize, "ZIP64 locator");
    EMBER_CHECK(le32(loc) == kEnd64LocatorSig, what_, ": the zip end record's ", why,
                " defers to a ZIP64 end record, but there is no ZIP64 end-of-central-directory locator");
    const uint64_t end64 = le64(loc + 8);
    EMBER_CHECK(end64 <= end_offset - kLocatorSize && end_offset - kLocatorSize - end64 >= kEnd64Size,
                what_, ": ZIP64 end record offset ", end64, " is out of range (the file has ", size, " bytes)");
    unsigned char r[kEnd64Size];
    src.read(end64, r, kEnd64Size, "ZIP64 end record");
    EMBER_CHECK(le32(r) == kEnd64Sig, what_, ": bad ZIP64 end-of-central-directory signature");
    EMBER_CHECK(le32(r + 16) == 0 && le32(r + 20) == 0, what_, ": multi-disk zip archives are not supported");
    const uint64_t count64 = le64(r + 32), disk_count64 = le64(r + 24);
    EMBER_CHECK(disk_count64 == count64, what_, ": ZIP64 end record counts ", disk_count64,
                " entries on its disk but ", count64, " in total");
    // A saturated field defers to the ZIP64 value only when some value needs
    // ZIP64 (writers saturate the fields that overflow, or all of them, as
    // Go's archive/zip); otherwise it is a claim, and a false one.
    const bool needed = count64 >= 0xFFFF || le64(r + 40) >= 0xFFFFFFFF || le64(r + 48) >= 0xFFFFFFFF;
    auto agree = [&](uint64_t v16, uint64_t saturated, uint64_t v64, const char* field) {
      EMBER_CHECK(v16 == v64 || (v16 == saturated && needed), what_, ": the zip end record claims ", field, " ",
                  v16, " but the ZIP64 end record says ", v64, v16 == saturated ? " (which needs no ZIP64)" : "");
    };
    agree(count, 0xFFFF, count64, "entry count");
    agree(disk_count16, 0xFFFF, count64, "entry count on its disk");
    agree(cd_size, 0xFFFFFFFF, le64(r + 40), "central directory size");
    agree(cd_offset, 0xFFFFFFFF, le64(r + 48), "central directory offset");
    count = count64;
    cd_size = le64(r + 40);
    cd_offset = le64(r + 48);
    cd_limit = end64;
  }
  EMBER_CHECK(cd_offset <= cd_limit && cd_size <= cd_limit - cd_offset, what_,
              ": central directory [", cd_offset, ", +", cd_size, ") is out of range (it must end by byte ",
              cd_limit, " of the file's ", size, ")");
  EMBER_CHECK(count <= cd_size / kCentralSize, what_, ": zip central directory claims ", count,
              " entries but its ", cd_size, " bytes hold at most ", cd_size / kCentralSize, " (",
              kCentralSize, " bytes each)");
  cd_offset_ = cd_offset;
  charge(cd_size + kHeapBlockOverhead, "the zip central directory");
  const std::string cd = src.read_string(cd_offset, static_cast<size_t>(cd_size), "central directory");
  const auto* c = reinterpret_cast<const unsigned char*>(cd.data());
  size_t pos = 0;
  charge(count * (sizeof(Entry) + kHashEntryBytes) + 2 * kHeapBlockOverhead, "the zip entry table");
  entries_.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    EMBER_CHECK(cd.size() - pos >= kCentralSize && le32(c + pos) == kCentralSig, what_,
                ": corrupt central directory entry ", i, " of the ", count, " it claims (at byte ", pos,
                " of ", cd.size(), ")");
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
                ": corrupt central directory entry ", i, " (its name and fields run past the directory)");
    // Names are short (<= 65535 bytes); twice: the entry and the index.
    charge(2 * (name_len + 1 + kHeapBlockOverhead), "the zip entry table");
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
    entry.stored_size = csize;
    EMBER_CHECK(entry.method != 0 || csize == usize, what_, ": entry '", entry.name,
                "' is stored with different compressed and uncompressed sizes");
    // Its local header (at least 30 bytes and the name) and its data must lie
    // before the central directory.
    const uint64_t min_header = kLocalSize + name_len;
    EMBER_CHECK(entry.local_offset <= cd_offset && min_header <= cd_offset - entry.local_offset &&
                    csize <= cd_offset - entry.local_offset - min_header,
                what_, ": entry '", entry.name, "' claims ", csize, " bytes at offset ", entry.local_offset,
                " but the entries must end by byte ", cd_offset, " (where the central directory starts; the file has ",
                size, " bytes)");
    auto [it, fresh] = index_.emplace(entry.name, entries_.size());
    EMBER_CHECK(fresh, what_, ": duplicate entry '", entry.name, "'");
    entries_.push_back(std::move(entry));
    pos += kCentralSize + name_len + extra_len + comment_len;
  }
  EMBER_CHECK(pos == cd.size(), what_, ": zip central directory claims ", count, " entries but its ",
              cd.size(), " bytes hold more (", cd.size() - pos, " bytes left after entry ", count, ")");
  // No two entries may overlap (a zip bomb reuses one entry's data for many):
  // in file order, each entry's header, name and data end before the next begins.
  charge(entries_.size() * sizeof(size_t) + kHeapBlockOverhead, "the zip entry table");
  std::vector<size_t> order(entries_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return entries_[a].local_offset < entries_[b].local_offset; });
  for (size_t k = 0; k < order.size(); ++k) {
    Entry& a = entries_[order[k]];
    a.next_offset = k + 1 < order.size() ? entries_[order[k + 1]].local_offset : cd_offset;
    const uint64_t end = a.local_offset + kLocalSize + a.name.size() + a.stored_size;  // <= cd_offset (checked)
    EMBER_CHECK(end <= a.next_offset, what_, ": entries '", a.name, "' (bytes [", a.local_offset, ", ", end,
                ")) and '", entries_[order[k + 1]].name, "' (from byte ", a.next_offset, ") overlap");
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
  return local_data_offset(e);
}

uint64_t ZipReader::local_data_offset(const Entry& e) const {
  // (The constructor checked that the local header and data fit before the next entry.)
  unsigned char h[kLocalSize];
  src_.read(e.local_offset, h, kLocalSize, "zip local header");
  EMBER_CHECK(le32(h) == kLocalSig, what_, ": bad local header signature for entry '", e.name, "'");
  const uint16_t flags = le16(h + 6), method = le16(h + 8);
  EMBER_CHECK(method == e.method && (flags & 1) == (e.flags & 1), what_, ": the local header of entry '", e.name,
              "' has method ", method, " and flags ", flags, " but the central directory ", e.method, " and ",
              e.flags);
  const uint64_t name_len = le16(h + 26), extra_len = le16(h + 28);
  EMBER_CHECK(name_len == e.name.size() &&
                  src_.read_string(e.local_offset + kLocalSize, name_len, "zip entry name") == e.name,
              what_, ": local header name does not match the central directory for '", e.name, "'");
  const uint64_t data = e.local_offset + kLocalSize + name_len + extra_len;
  EMBER_CHECK(data <= e.next_offset && e.stored_size <= e.next_offset - data, what_, ": entry '", e.name, "' (",
              e.stored_size, " bytes at ", data, ") runs past byte ", e.next_offset, ", where ",
              e.next_offset == cd_offset_ ? "the central directory" : "the next entry", " starts");
  // The local header's sizes: 0 with a data descriptor (bit 3, as torch.save
  // writes), else the central directory's (0xFFFFFFFF: see its ZIP64 field).
  uint64_t csize = le32(h + 18), usize = le32(h + 22);
  if (csize == 0xFFFFFFFF || usize == 0xFFFFFFFF) {
    const std::string extra = src_.read_string(e.local_offset + kLocalSize + name_len, extra_len, "zip extra field");
    const auto* x = reinterpret_cast<const unsigned char*>(extra.data());
    for (size_t k = 0; k + 4 <= extra.size();) {
      const uint16_t id = le16(x + k), len = le16(x + k + 2);
      if (k + 4 + len > extra.size()) break;
      if (id == 0x0001 && len >= 16) {
        usize = le64(x + k + 4);
        csize = le64(x + k + 12);
      }
      k += 4 + len;
    }
  }
  const bool descriptor = (flags & 8) != 0;
  for (auto [declared, expected] : {std::pair{csize, e.stored_size}, std::pair{usize, e.size}}) {
    if (declared == expected || (descriptor && declared == 0)) continue;
    EMBER_FAIL(what_, ": the local header of entry '", e.name, "' declares ", declared,
               " bytes but the central directory says ", expected, declared > src_.size() ? " (and the file has only " + std::to_string(src_.size()) + " bytes)" : "");
  }
  return data;
}

uint64_t ZipReader::verified_data_offset(const Entry& e) const {
  const uint64_t off = data_offset(e);
  constexpr size_t kChunk = 64 * 1024;
  if (budget_) budget_->charge(kChunk + kHeapBlockOverhead, "a zip read buffer");
  std::vector<unsigned char> buf(static_cast<size_t>(std::min<uint64_t>(e.size, kChunk)));
  uint32_t crc = 0;
  for (uint64_t done = 0; done < e.size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(e.size - done, kChunk));
    src_.read(off + done, buf.data(), n, "zip entry");
    crc = crc32(buf.data(), n, crc);
    done += n;
  }
  if (budget_) budget_->release(kChunk + kHeapBlockOverhead);
  EMBER_CHECK(crc == e.crc, what_, ": CRC-32 mismatch in entry '", e.name, "' (corrupted file)");
  return off;
}

std::string ZipReader::read(const Entry& e) const {
  const uint64_t off = data_offset(e);
  if (budget_) budget_->charge(e.size + 1 + kHeapBlockOverhead, "a zip entry");
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

std::string ZipReader::read_text(const Entry& e, uint64_t max_size) const {
  EMBER_CHECK((e.flags & 1) == 0, what_, ": entry '", e.name, "' is encrypted");
  EMBER_CHECK(e.size <= max_size, what_, ": entry '", e.name, "' of ", e.size, " bytes is larger than ", max_size);
  if (e.method == 0) return read(e);
  EMBER_CHECK(e.method == 8, what_, ": entry '", e.name, "' uses compression method ", e.method,
              " (only stored and deflated entries can be read)");
  EMBER_CHECK(e.stored_size <= UINT32_MAX, what_, ": compressed entry '", e.name, "' of ", e.stored_size,
              " bytes is larger than 4 GiB");
  const uint64_t off = local_data_offset(e);
  // The compressed bytes are bounded by the file (the constructor checked the
  // entry's extent), the output by max_size: inflate must give exactly e.size bytes.
  if (budget_) budget_->charge(e.stored_size + e.size + 2 + 2 * kHeapBlockOverhead, "a compressed zip entry");
  const std::string in = src_.read_string(off, static_cast<size_t>(e.stored_size), "zip entry");
  std::string out(static_cast<size_t>(e.size), '\0');
  // zlib's inflate state and its 32 KiB window, held while inflating.
  constexpr uint64_t kInflateState = 48 * 1024;
  if (budget_) budget_->charge(kInflateState, "zlib's inflate state");
  z_stream z{};
  EMBER_CHECK(inflateInit2(&z, -MAX_WBITS) == Z_OK, what_, ": entry '", e.name, "': zlib could not start");
  struct InflateEnd {
    z_stream* z;
    ~InflateEnd() { inflateEnd(z); }  // also when a check below throws
  } end_inflate{&z};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_FINISH);
  if (rc == Z_BUF_ERROR && z.avail_out == 0) {
    // The output is full but the stream has not ended: one byte of room shows
    // whether it holds more than the declared size (or only its end marker).
    unsigned char extra = 0;
    z.next_out = &extra;
    z.avail_out = 1;
    rc = inflate(&z, Z_FINISH);
    EMBER_CHECK(z.avail_out == 1, what_, ": entry '", e.name, "' inflates to more than its declared ", e.size, " bytes");
  }
  const uint64_t produced = z.total_out;
  if (budget_) budget_->release(kInflateState);
  EMBER_CHECK(rc == Z_STREAM_END && produced == e.size, what_, ": entry '", e.name, "' is not valid deflate data of ",
              e.size, " bytes (zlib: ", rc == Z_STREAM_END ? "ends after " + std::to_string(produced) + " bytes" : "error " + std::to_string(rc), ")");
  EMBER_CHECK(crc32(out.data(), out.size()) == e.crc, what_, ": CRC-32 mismatch in entry '", e.name,
              "' (corrupted file)");
  if (budget_) budget_->release(e.stored_size + 1 + kHeapBlockOverhead);  // the input buffer is gone
  return out;
}

}  // namespace ember::serialize
