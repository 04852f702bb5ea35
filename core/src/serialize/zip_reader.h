#pragma once
// A reader for the uncompressed ("stored") zip archives torch.save writes
// (PKWARE APPNOTE: end of central directory, ZIP64 records, central directory,
// local headers). Compressed or encrypted entries are rejected with a clear
// error; every count, size and offset is checked against the file before use
// (the entry count against what the central directory holds, each entry's
// extent against the start of the central directory, entries against each
// other: no two may overlap, so their data add up to at most the file; local
// headers against the central directory), and entry data are CRC-32 checked
// when read. Errors say which number is wrong and what it should fit.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "serialize/byte_source.h"
#include "serialize/memory_budget.h"

namespace ember::serialize {

class ZipReader {
 public:
  struct Entry {
    std::string name;
    uint64_t size = 0;          // uncompressed == compressed for stored entries
    uint64_t stored_size = 0;   // the bytes in the file (compressed size)
    uint64_t local_offset = 0;  // of the local file header
    uint32_t crc = 0;
    uint16_t method = 0;
    uint16_t flags = 0;
    uint64_t next_offset = 0;  // where the next entry (or the central directory) starts
  };

  // Reads and validates the central directory; `what` prefixes error
  // messages. What the reader holds in memory is charged to `budget` when
  // one is given.
  ZipReader(const ByteSource& src, std::string what, MemoryBudget* budget = nullptr);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(std::string_view name) const;
  // Offset of the entry's data in the source, after validating its local
  // header; the entry must be stored (not compressed or encrypted).
  uint64_t data_offset(const Entry& e) const;
  // data_offset() after checking the entry's CRC-32 (reading it in chunks),
  // for callers that read the data from the source themselves.
  uint64_t verified_data_offset(const Entry& e) const;
  // Reads the whole entry (checks CRC-32).
  std::string read(const Entry& e) const;
  // Reads the whole entry into dst (e.size bytes; checks CRC-32).
  void read_into(const Entry& e, void* dst) const;
  // A stored or deflated entry (the code/ files of TorchScript archives are
  // deflated) of at most max_size bytes, inflated through zlib and CRC-checked.
  std::string read_text(const Entry& e, uint64_t max_size) const;

 private:
  const ByteSource& src_;
  std::string what_;
  uint64_t local_data_offset(const Entry& e) const;
  MemoryBudget* budget_;
  uint64_t cd_offset_ = 0;  // entry data must end before the central directory
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;
};

// CRC-32 (ISO-HDLC, as zip and zlib), continuing from crc.
uint32_t crc32(const void* data, size_t n, uint32_t crc = 0);

}  // namespace ember::serialize
