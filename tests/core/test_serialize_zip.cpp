// The zip reader's checks on counts, sizes and offsets (serialize/zip_reader.h),
// on crafted archives: a false entry count (65,535 claimed), local headers
// declaring sizes the central directory does not, entries reaching past the
// central directory or overlapping (a zip bomb reuses one entry's bytes for
// many). Each must be an ember::Error saying what is wrong, never a load.
#include <gtest/gtest.h>

#include <cstring>

#include <ember/ember.h>

#include "serialize_test_util.h"
#include "tensor_expect.h"

namespace ember {
namespace serialize_zip_test {

using testing::expect_error;

void load(const std::string& f) { serialize::load_torch_bytes(f.data(), f.size()); }

void put16(std::string& s, size_t at, uint16_t v) {
  s[at] = static_cast<char>(v & 0xFF);
  s[at + 1] = static_cast<char>(v >> 8);
}
void put32(std::string& s, size_t at, uint32_t v) {
  put16(s, at, static_cast<uint16_t>(v & 0xFFFF));
  put16(s, at + 2, static_cast<uint16_t>(v >> 16));
}
void put64(std::string& s, size_t at, uint64_t v) {
  put32(s, at, static_cast<uint32_t>(v));
  put32(s, at + 4, static_cast<uint32_t>(v >> 32));
}
uint64_t get64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(s[at + size_t(k)]);
  return v;
}

// torch.save's archive (with ZIP64 end records, local headers with data
// descriptors) and a plain one from the test writer.
std::string pytorch_zip() { return testing::read_bytes(testing::fixture_path("core/serialize/state_dict_zip.pt")); }
std::string plain_zip() {
  return testing::torch_zip(testing::PickleWriter().op('N').stop().bytes(), {{"0", std::string(64, '\1')}});
}
constexpr size_t kEndSize = 22;

TEST(SerializeZip, ArchivesLoadUnmodified) {
  EXPECT_NO_THROW(load(pytorch_zip()));
  EXPECT_NO_THROW(load(plain_zip()));
}

TEST(SerializeZip, FalseEntryCounts) {
  // 65,535 in the end record of an archive without ZIP64 records.
  {
    std::string f = plain_zip();
    put16(f, f.size() - kEndSize + 8, 0xFFFF);
    put16(f, f.size() - kEndSize + 10, 0xFFFF);
    expect_error([&] { load(f); },
                 "the zip end record's entry count 65535 defers to a ZIP64 end record, but there is no ZIP64 "
                 "end-of-central-directory locator");
  }
  // 65,535 in the end record of torch.save's archive, whose ZIP64 record says 11.
  {
    std::string f = pytorch_zip();
    put16(f, f.size() - kEndSize + 8, 0xFFFF);
    put16(f, f.size() - kEndSize + 10, 0xFFFF);
    expect_error([&] { load(f); }, "the zip end record claims entry count 65535 but the ZIP64 end record says 11 "
                                   "(which needs no ZIP64)");
  }
  // 65,535 in both: more entries than the central directory can hold.
  {
    std::string f = pytorch_zip();
    put16(f, f.size() - kEndSize + 8, 0xFFFF);
    put16(f, f.size() - kEndSize + 10, 0xFFFF);
    const size_t end64 = static_cast<size_t>(get64(f, f.size() - kEndSize - 20 + 8));
    put64(f, end64 + 24, 65535);
    put64(f, end64 + 32, 65535);
    expect_error([&] { load(f); }, "zip central directory claims 65535 entries but its 740 bytes hold at most 16");
  }
  // Fewer entries than the directory holds, and disagreeing counts.
  {
    std::string f = plain_zip();  // data.pkl, data/0, version
    put16(f, f.size() - kEndSize + 8, 2);
    put16(f, f.size() - kEndSize + 10, 2);
    expect_error([&] { load(f); }, "zip central directory claims 2 entries but its");
    put16(f, f.size() - kEndSize + 10, 3);
    expect_error([&] { load(f); }, "zip end record counts 2 entries on its disk but 3 in total");
  }
  // More than it holds: the last claimed entry is missing.
  {
    std::string f = plain_zip();
    put16(f, f.size() - kEndSize + 8, 4);
    put16(f, f.size() - kEndSize + 10, 4);
    expect_error([&] { load(f); }, "zip central directory claims 4 entries but its 183 bytes hold at most 3");
  }
}

TEST(SerializeZip, LocalHeadersDeclaringOtherSizes) {
  // The test writer's local headers carry the sizes (no data descriptor).
  {
    std::string f = plain_zip();
    put32(f, 18, 0xFFFFFFF0);
    expect_error([&] { load(f); },
                 "the local header of entry 'archive/data.pkl' declares 4294967280 bytes but the central directory "
                 "says 4 (and the file has only " +
                     std::to_string(f.size()) + " bytes)");
  }
  {
    std::string f = plain_zip();
    put32(f, 22, 2);
    expect_error([&] { load(f); }, "declares 2 bytes but the central directory says 4");
  }
  // torch.save's local headers: sizes 0 with a data descriptor; a size is refused.
  {
    std::string f = pytorch_zip();
    put32(f, 18, 0x7FFFFFFF);
    put32(f, 22, 0x7FFFFFFF);
    expect_error([&] { load(f); }, "the local header of entry 'state_dict_zip/data.pkl' declares 2147483647 bytes");
  }
  // A local header whose method differs from the central directory's.
  {
    std::string f = plain_zip();
    put16(f, 8, 8);
    expect_error([&] { load(f); }, "has method 8 and flags 0 but the central directory 0 and 0");
  }
}

// The offset of entry k's central directory record in an archive from the test writer.
size_t central_record(const std::string& f, int k) {
  size_t pos = static_cast<size_t>(get64(f, f.size() - kEndSize + 16) & 0xFFFFFFFF);
  for (int i = 0; i < k; ++i) {
    const auto* h = reinterpret_cast<const unsigned char*>(f.data() + pos);
    pos += 46 + (h[28] | (h[29] << 8)) + (h[30] | (h[31] << 8)) + (h[32] | (h[33] << 8));
  }
  return pos;
}

TEST(SerializeZip, EntriesPastTheCentralDirectory) {
  std::string f = plain_zip();
  const size_t rec = central_record(f, 1);  // archive/data/0
  put32(f, rec + 20, 0x7FFFFFFF);
  put32(f, rec + 24, 0x7FFFFFFF);
  expect_error([&] { load(f); }, "entry 'archive/data/0' claims 2147483647 bytes at offset");
  expect_error([&] { load(f); }, "but the entries must end by byte");
  // A local header offset past the central directory.
  f = plain_zip();
  put32(f, central_record(f, 2) + 42, 0x7FFFFFF0);
  expect_error([&] { load(f); }, "entry 'archive/version' claims 2 bytes at offset 2147483632");
}

// Entry A's data holds entry B (header, name, data): both read B's bytes.
TEST(SerializeZip, OverlappingEntries) {
  auto local = [](const std::string& name, const std::string& data) {
    std::string h(30, '\0');
    put32(h, 0, 0x04034b50);
    put16(h, 4, 20);
    put32(h, 14, serialize::crc32(data.data(), data.size()));
    put32(h, 18, static_cast<uint32_t>(data.size()));
    put32(h, 22, static_cast<uint32_t>(data.size()));
    put16(h, 26, static_cast<uint16_t>(name.size()));
    return h + name + data;
  };
  auto central = [](const std::string& name, const std::string& data, uint32_t offset) {
    std::string h(46, '\0');
    put32(h, 0, 0x02014b50);
    put16(h, 4, 20);
    put16(h, 6, 20);
    put32(h, 16, serialize::crc32(data.data(), data.size()));
    put32(h, 20, static_cast<uint32_t>(data.size()));
    put32(h, 24, static_cast<uint32_t>(data.size()));
    put16(h, 28, static_cast<uint16_t>(name.size()));
    put32(h, 42, offset);
    return h + name;
  };
  const std::string b_data(64, '\1');
  const std::string b = local("archive/data/1", b_data);
  const std::string a = local("archive/data/0", b);  // A's data is B, whole
  std::string f = a;
  const std::string cd = central("archive/data/0", b, 0) + central("archive/data/1", b_data, 30 + 14);
  f += cd;
  std::string end(kEndSize, '\0');
  put32(end, 0, 0x06054b50);
  put16(end, 8, 2);
  put16(end, 10, 2);
  put32(end, 12, static_cast<uint32_t>(cd.size()));
  put32(end, 16, static_cast<uint32_t>(a.size()));
  f += end;
  expect_error([&] { load(f); }, "entries 'archive/data/0' (bytes [0, 152)) and 'archive/data/1' (from byte 44) overlap");
}

}  // namespace serialize_zip_test
}  // namespace ember
