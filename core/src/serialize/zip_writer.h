#pragma once
// A writer of the uncompressed zip archives torch.save writes, byte for byte
// as libtorch's PyTorchStreamWriter (miniz) writes them.
//
// Note [Zip records as torch.save writes them]
// Every record is stored (method 0) under "<archive>/<name>" with a local
// header whose CRC and sizes are 0 and whose flags are 0x0808 (a data
// descriptor follows the data; names are UTF-8), an extra field "FB" padded
// with 'Z' so that the data start at a multiple of 64 bytes (PyTorch's
// alignment, which lets a loader map storages in place), and after the data a
// descriptor "PK\7\8", CRC-32, sizes (an empty record instead has flags
// 0x0800 and no descriptor). Dates and times are 0. A record or an
// offset that does not fit in 32 bits gets ZIP64 fields: a ZIP64 extra field
// before the padding in the local header (counted in the padding, as
// PyTorch's getPadding does), 64-bit sizes in the descriptor, and a ZIP64
// extra field in the central directory. The archive ends with the ZIP64 end
// of central directory record and locator (always, as miniz writes them with
// MZ_ZIP_FLAG_WRITE_ZIP64) and the classic end record, whose fields are
// saturated to 0xFFFF/0xFFFFFFFF when they overflow.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ember::serialize {

class ZipWriter {
 public:
  // Receives the archive's bytes in order.
  using Sink = std::function<void(const void* data, size_t size)>;

  ZipWriter(std::string archive_name, Sink sink, std::string what);

  // A record of `size` bytes, handed to the writer in pieces by `fill`
  // (which calls `write(piece, n)` until the pieces add up to size), so that a
  // storage is written from tensor memory without a copy.
  void write_record(std::string_view name, uint64_t size,
                    const std::function<void(const std::function<void(const void*, size_t)>& write)>& fill);
  void write_record(std::string_view name, std::string_view data);
  // The central directory and end records.
  void finish();

  uint64_t bytes_written() const { return offset_; }
  // Records at or above this many bytes (and offsets at or above it) get
  // ZIP64 fields; 0xFFFFFFFF as in miniz. Tests lower it to check the ZIP64
  // forms on small archives.
  void set_zip64_threshold(uint64_t t) { zip64_threshold_ = t; }

 private:
  struct Record {
    std::string name;
    uint64_t offset, size;
    uint32_t crc;
  };
  void put(const void* data, size_t n);
  void put_le(uint64_t v, int bytes);

  std::string prefix_;
  Sink sink_;
  std::string what_;
  uint64_t offset_ = 0;
  uint64_t zip64_threshold_ = 0xFFFFFFFFu;
  std::vector<Record> records_;
  bool finished_ = false;
};

}  // namespace ember::serialize
