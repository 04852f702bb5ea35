#include "idx_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <ember/core/checked_size.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include "format_util.h"

namespace ember::datasets::detail {

namespace {

// A sequential byte source: a plain file or a gzip stream.
class ByteReader {
 public:
  virtual ~ByteReader() = default;
  // Reads up to n bytes; fewer only at the end of the data. Raises on errors.
  virtual size_t read(uint8_t* dst, size_t n) = 0;
};

class PlainReader final : public ByteReader {
 public:
  PlainReader(const std::string& path, std::string_view dataset) : path_(path), dataset_(dataset) {
    f_ = std::fopen(path.c_str(), "rb");
    EMBER_CHECK(f_, dataset, ": cannot open ", path, ": ", std::strerror(errno));
  }
  ~PlainReader() override { std::fclose(f_); }
  size_t read(uint8_t* dst, size_t n) override {
    const size_t got = std::fread(dst, 1, n, f_);
    EMBER_CHECK(got == n || !std::ferror(f_), dataset_, ": error reading ", path_);
    return got;
  }

 private:
  std::FILE* f_ = nullptr;
  std::string path_;
  std::string_view dataset_;
};

class GzipReader final : public ByteReader {
 public:
  GzipReader(const std::string& path, std::string_view dataset) : path_(path), dataset_(dataset) {
    gz_ = gzopen(path.c_str(), "rb");
    EMBER_CHECK(gz_, dataset, ": cannot open ", path, ": ", std::strerror(errno));
    gzbuffer(gz_, 1 << 17);
  }
  ~GzipReader() override { gzclose(gz_); }
  size_t read(uint8_t* dst, size_t n) override {
    size_t total = 0;
    while (total < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - total, 1u << 30));
      const int got = gzread(gz_, dst + total, chunk);
      if (got < 0 || (got == 0 && !gzeof(gz_))) fail();
      if (got == 0) break;
      total += static_cast<size_t>(got);
    }
    // A stream cut short reads as an early end; zlib reports it as Z_BUF_ERROR.
    if (total < n) {
      int err = Z_OK;
      gzerror(gz_, &err);
      if (err != Z_OK) fail();
    }
    return total;
  }

 private:
  [[noreturn]] void fail() {
    int err = Z_OK;
    const char* msg = gzerror(gz_, &err);
    if (err == Z_BUF_ERROR)
      EMBER_FAIL(dataset_, ": ", path_, " is a truncated gzip stream (", msg, ")");
    EMBER_FAIL(dataset_, ": ", path_, " is not a valid gzip stream (",
               err == Z_ERRNO ? std::strerror(errno) : msg, ")");
  }
  gzFile gz_ = nullptr;
  std::string path_;
  std::string_view dataset_;
};

const char* idx_type_name(uint8_t type) {
  switch (type) {
    case 0x08:
      return "unsigned byte";
    case 0x09:
      return "signed byte";
    case 0x0B:
      return "int16";
    case 0x0C:
      return "int32";
    case 0x0D:
      return "float32";
    case 0x0E:
      return "float64";
    default:
      return "unknown";
  }
}

}  // namespace

Tensor read_idx_ubyte(const std::string& path, int64_t ndim, std::string_view dataset) {
  const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  std::unique_ptr<ByteReader> reader;
  if (gzip)
    reader = std::make_unique<GzipReader>(path, dataset);
  else
    reader = std::make_unique<PlainReader>(path, dataset);

  uint8_t magic[4];
  const size_t got_magic = reader->read(magic, 4);
  EMBER_CHECK(got_magic == 4, dataset, ": ", path, " is too short for an IDX file (", got_magic,
              " bytes, the header alone takes ", 4 + 4 * ndim, ")");
  const uint32_t magic_value = (uint32_t{magic[0]} << 24) | (uint32_t{magic[1]} << 16) |
                               (uint32_t{magic[2]} << 8) | magic[3];
  char expected_hex[16], got_hex[16];
  std::snprintf(expected_hex, sizeof expected_hex, "0x%08X", 0x0800u | static_cast<uint32_t>(ndim));
  std::snprintf(got_hex, sizeof got_hex, "0x%08X", magic_value);
  EMBER_CHECK(magic[0] == 0 && magic[1] == 0, dataset, ": ", path,
              " is not an IDX file: bad magic number ", got_hex, " (expected ", expected_hex, ")");
  EMBER_CHECK(magic[2] == 0x08, dataset, ": ", path, " holds IDX elements of type ",
              idx_type_name(magic[2]), " (magic number ", got_hex, "); expected unsigned bytes (",
              expected_hex, ")");
  EMBER_CHECK(magic[3] == ndim, dataset, ": ", path, " has ", int{magic[3]},
              " dimensions (magic number ", got_hex, "); expected ", ndim, " (", expected_hex, ")");

  std::vector<uint8_t> dims_raw(static_cast<size_t>(4 * ndim));
  const size_t got_dims = reader->read(dims_raw.data(), dims_raw.size());
  EMBER_CHECK(got_dims == dims_raw.size(), dataset, ": ", path,
              " is truncated inside its IDX header (", 4 + got_dims, " of ", 4 + dims_raw.size(),
              " bytes)");
  std::vector<int64_t> sizes(static_cast<size_t>(ndim));
  std::string shape;
  for (int64_t d = 0; d < ndim; ++d) {
    const uint8_t* b = dims_raw.data() + 4 * d;
    const uint64_t n =
        (uint64_t{b[0]} << 24) | (uint64_t{b[1]} << 16) | (uint64_t{b[2]} << 8) | b[3];
    sizes[static_cast<size_t>(d)] = static_cast<int64_t>(n);
    shape += (d ? " x " : "") + std::to_string(n);
  }
  // Each size is below 2^32, but three of them can multiply past int64: the
  // count is checked (Note [Checked sizes]) before it is compared with the
  // data's real length and anything is allocated.
  const std::optional<int64_t> numel = try_numel(sizes);
  EMBER_CHECK(numel.has_value(), dataset, ": ", path, " has IDX sizes ", shape,
              " whose product overflows int64: too large to be real");
  const uint64_t count = static_cast<uint64_t>(*numel);
  const uint64_t header = 4 + 4 * static_cast<uint64_t>(ndim);

  if (!gzip) {
    const uint64_t data_bytes = file_size(path, dataset) - header;
    EMBER_CHECK(data_bytes >= count, dataset, ": ", path, " is truncated: its header says ", shape,
                " (", count, " bytes of data) but the file holds ", data_bytes);
    EMBER_CHECK(data_bytes == count, dataset, ": ", path, " has ", data_bytes - count,
                " bytes after the ", shape, " elements its header describes");
    Tensor out = empty(sizes, kUInt8);
    const size_t got = count ? reader->read(out.data_ptr<uint8_t>(), count) : 0;
    EMBER_CHECK(got == count, dataset, ": ", path, " changed while being read (", got, " of ",
                count, " bytes)");
    return out;
  }

  // gzip: the uncompressed length is unknown until the end, so grow the
  // buffer with the data actually decompressed, never past the header's count.
  std::vector<uint8_t> data;
  constexpr size_t kChunk = size_t{1} << 22;
  while (data.size() < count) {
    const size_t want = std::min<uint64_t>(kChunk, count - data.size());
    const size_t old = data.size();
    data.resize(old + want);
    const size_t got = reader->read(data.data() + old, want);
    data.resize(old + got);
    if (got < want) break;
  }
  EMBER_CHECK(data.size() == count, dataset, ": ", path, " is truncated: its header says ", shape,
              " (", count, " bytes of data) but the decompressed file holds ", data.size());
  uint8_t extra[1];
  EMBER_CHECK(reader->read(extra, 1) == 0, dataset, ": ", path, " has data after the ", shape,
              " elements its header describes");
  return tensor_from_bytes(std::move(data), sizes);
}

}  // namespace ember::datasets::detail
