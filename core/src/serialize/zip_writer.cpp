#include "serialize/zip_writer.h"

#include "ember/core/error.h"
#include "serialize/zip_reader.h"

namespace ember::serialize {

namespace {
constexpr uint64_t kAlignment = 64;  // PyTorch's kFieldAlignment
constexpr uint32_t kLocalHeader = 0x04034b50, kDescriptor = 0x08074b50, kCentralHeader = 0x02014b50,
                   kZip64End = 0x06064b50, kZip64Locator = 0x07064b50, kEnd = 0x06054b50;
constexpr uint16_t kFlags = 0x0808;  // data descriptor, UTF-8 names
constexpr uint16_t kEmptyFlags = 0x0800;  // miniz writes an empty record without a descriptor
}  // namespace

ZipWriter::ZipWriter(std::string archive_name, Sink sink, std::string what)
    : prefix_(std::move(archive_name) + "/"), sink_(std::move(sink)), what_(std::move(what)) {}

void ZipWriter::put(const void* data, size_t n) {
  if (n == 0) return;
  sink_(data, n);
  offset_ += n;
}

void ZipWriter::put_le(uint64_t v, int bytes) {
  unsigned char b[8];
  for (int k = 0; k < bytes; ++k) b[k] = static_cast<unsigned char>(v >> (8 * k));
  put(b, static_cast<size_t>(bytes));
}

void ZipWriter::write_record(std::string_view name, std::string_view data) {
  write_record(name, data.size(), [&](const auto& write) { write(data.data(), data.size()); });
}

void ZipWriter::write_record(
    std::string_view name, uint64_t size,
    const std::function<void(const std::function<void(const void*, size_t)>& write)>& fill) {
  EMBER_CHECK(!finished_, what_, ": record '", name, "' written after the archive was finished");
  const std::string full = prefix_ + std::string(name);
  EMBER_CHECK(full.size() <= 0xFFFF, what_, ": record name of ", full.size(), " bytes is too long for zip");
  const uint64_t header = offset_;
  const bool big_size = size >= zip64_threshold_, big_offset = header >= zip64_threshold_;
  // The ZIP64 extra field (id 1): the sizes and/or the offset that need it.
  std::string zip64;
  auto add64 = [&](uint64_t v) {
    for (int k = 0; k < 8; ++k) zip64.push_back(static_cast<char>(v >> (8 * k)));
  };
  if (big_size || big_offset) {
    zip64 = std::string("\x01\x00\x00\x00", 4);
    if (big_size) add64(size), add64(size);
    if (big_offset) add64(header);
    zip64[2] = static_cast<char>((zip64.size() - 4) & 0xff);
  }
  // PyTorch's getPadding: the data start at the next multiple of 64 after the
  // header, the name, the ZIP64 field and the padding field's own 4 bytes.
  const uint64_t start = header + 30 + full.size() + zip64.size() + 4;
  const uint64_t padding = (kAlignment - start % kAlignment) % kAlignment;
  std::string pad = "FB";
  pad.push_back(static_cast<char>(padding & 0xff));
  pad.push_back(static_cast<char>(padding >> 8));
  pad.append(padding, 'Z');

  put_le(kLocalHeader, 4);
  put_le(0, 2);       // version needed
  put_le(size == 0 ? kEmptyFlags : kFlags, 2);
  put_le(0, 2);       // stored
  put_le(0, 4);       // time, date
  put_le(0, 4);       // CRC (in the descriptor)
  put_le(0, 8);       // sizes (in the descriptor)
  put_le(full.size(), 2);
  put_le(zip64.size() + pad.size(), 2);
  put(full.data(), full.size());
  put(zip64.data(), zip64.size());
  put(pad.data(), pad.size());

  uint32_t crc = 0;
  uint64_t written = 0;
  fill([&](const void* data, size_t n) {
    crc = crc32(data, n, crc);
    written += n;
    put(data, n);
  });
  EMBER_CHECK(written == size, what_, ": record '", full, "' was declared with ", size, " bytes but ", written,
              " were written");
  if (size > 0) {
    put_le(kDescriptor, 4);
    put_le(crc, 4);
    if (big_size || big_offset) {
      put_le(size, 8);
      put_le(size, 8);
    } else {
      put_le(size, 4);
      put_le(size, 4);
    }
  }
  records_.push_back(Record{full, header, size, crc});
}

void ZipWriter::finish() {
  EMBER_CHECK(!finished_, what_, ": the archive is finished twice");
  finished_ = true;
  const uint64_t cd_offset = offset_;
  for (const Record& r : records_) {
    const bool big_size = r.size >= zip64_threshold_, big_offset = r.offset >= zip64_threshold_;
    std::string zip64;
    auto add64 = [&](uint64_t v) {
      for (int k = 0; k < 8; ++k) zip64.push_back(static_cast<char>(v >> (8 * k)));
    };
    if (big_size || big_offset) {
      zip64 = std::string("\x01\x00\x00\x00", 4);
      if (big_size) add64(r.size), add64(r.size);
      if (big_offset) add64(r.offset);
      zip64[2] = static_cast<char>((zip64.size() - 4) & 0xff);
    }
    put_le(kCentralHeader, 4);
    put_le(0, 2);  // version made by
    put_le(0, 2);  // version needed
    put_le(r.size == 0 ? kEmptyFlags : kFlags, 2);
    put_le(0, 2);  // stored
    put_le(0, 4);  // time, date
    put_le(r.crc, 4);
    put_le(big_size ? 0xFFFFFFFFu : r.size, 4);
    put_le(big_size ? 0xFFFFFFFFu : r.size, 4);
    put_le(r.name.size(), 2);
    put_le(zip64.size(), 2);
    put_le(0, 2);  // comment
    put_le(0, 2);  // disk
    put_le(0, 2);  // internal attributes
    put_le(0, 4);  // external attributes
    put_le(big_offset ? 0xFFFFFFFFu : r.offset, 4);
    put(r.name.data(), r.name.size());
    put(zip64.data(), zip64.size());
  }
  const uint64_t cd_size = offset_ - cd_offset;
  const uint64_t zip64_end = offset_;
  const uint64_t n = records_.size();
  put_le(kZip64End, 4);
  put_le(44, 8);      // size of the rest of the record
  put_le(0x031e, 2);  // made by (miniz: Unix, 3.0)
  put_le(0x002d, 2);  // needed: 4.5 (ZIP64)
  put_le(0, 4);
  put_le(0, 4);
  put_le(n, 8);
  put_le(n, 8);
  put_le(cd_size, 8);
  put_le(cd_offset, 8);
  put_le(kZip64Locator, 4);
  put_le(0, 4);
  put_le(zip64_end, 8);
  put_le(1, 4);
  put_le(kEnd, 4);
  put_le(0, 4);
  put_le(std::min<uint64_t>(n, 0xFFFF), 2);
  put_le(std::min<uint64_t>(n, 0xFFFF), 2);
  put_le(std::min<uint64_t>(cd_size, 0xFFFFFFFFu), 4);
  put_le(std::min<uint64_t>(cd_offset, 0xFFFFFFFFu), 4);
  put_le(0, 2);
}

}  // namespace ember::serialize
