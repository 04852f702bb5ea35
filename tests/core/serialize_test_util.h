#pragma once
// Helpers for the serialization tests: a temporary directory, deterministic
// tensors of any dtype, and whole-file reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include <ember/ember.h>

#include "temp_dir.h"

namespace ember::testing {

using TempDir = ember::testing::TempDir;  // temp_dir.h

inline std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Values that survive every dtype exactly (small integers, halves, and an
// imaginary part for complex types).
inline Tensor random_tensor(const std::vector<int64_t>& shape, DType dtype, int seed) {
  Generator gen(static_cast<uint64_t>(seed));
  Tensor v = randint(-8, 8, shape, kInt64, &gen);
  if (dtype == kBool) return v > 0;
  if (dtype == kUInt8) return (v + 8).to(dtype);
  if (is_floating_point(dtype)) return (v.to(kFloat64) * 0.5).to(dtype);
  if (is_complex(dtype)) {
    Tensor im = randint(-8, 8, shape, kInt64, &gen).to(kFloat64);
    return (v.to(kComplex128) + im.to(kComplex128) * scalar_tensor(complex128(0, 0.25))).to(dtype);
  }
  return v.to(dtype);
}

}  // namespace ember::testing

#include "serialize/zip_reader.h"

namespace ember::testing {

// A minimal zip writer (stored entries, as torch.save writes them).
// method != 0 only marks entries as compressed, to test that they are refused.
struct ZipEntrySpec {
  std::string name;
  std::string data;
  uint16_t method = 0;
};

inline std::string make_zip(const std::vector<ZipEntrySpec>& entries) {
  auto put16 = [](std::string& s, uint16_t v) {
    s += static_cast<char>(v & 0xFF);
    s += static_cast<char>(v >> 8);
  };
  auto put32 = [&](std::string& s, uint32_t v) {
    put16(s, static_cast<uint16_t>(v & 0xFFFF));
    put16(s, static_cast<uint16_t>(v >> 16));
  };
  std::string out, cd;
  for (const auto& e : entries) {
    const uint32_t crc = serialize::crc32(e.data.data(), e.data.size());
    const uint32_t offset = static_cast<uint32_t>(out.size());
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0);
    put16(out, e.method);
    put32(out, 0);
    put32(out, crc);
    put32(out, static_cast<uint32_t>(e.data.size()));
    put32(out, static_cast<uint32_t>(e.data.size()));
    put16(out, static_cast<uint16_t>(e.name.size()));
    put16(out, 0);
    out += e.name;
    out += e.data;
    put32(cd, 0x02014b50);
    put16(cd, 20);
    put16(cd, 20);
    put16(cd, 0);
    put16(cd, e.method);
    put32(cd, 0);
    put32(cd, crc);
    put32(cd, static_cast<uint32_t>(e.data.size()));
    put32(cd, static_cast<uint32_t>(e.data.size()));
    put16(cd, static_cast<uint16_t>(e.name.size()));
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, 0);
    put32(cd, offset);
    cd += e.name;
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += cd;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint16_t>(entries.size()));
  put16(out, static_cast<uint16_t>(entries.size()));
  put32(out, static_cast<uint32_t>(cd.size()));
  put32(out, cd_offset);
  put16(out, 0);
  return out;
}

// Writes pickle opcodes (protocol 2) by name, for hand-made malicious files.
class PickleWriter {
 public:
  PickleWriter() { s_ += "\x80\x02"; }
  PickleWriter& op(char c) { s_ += c; return *this; }
  PickleWriter& raw(const std::string& bytes) { s_ += bytes; return *this; }
  PickleWriter& mark() { return op('('); }
  PickleWriter& str(const std::string& v) {
    op('X');
    le(v.size(), 4);
    s_ += v;
    return *this;
  }
  PickleWriter& integer(int32_t v) {
    op('J');
    le(static_cast<uint32_t>(v), 4);
    return *this;
  }
  PickleWriter& global(const std::string& module, const std::string& name) {
    s_ += 'c' + module + '\n' + name + '\n';
    return *this;
  }
  PickleWriter& tuple() { return op('t'); }
  PickleWriter& reduce() { return op('R'); }
  PickleWriter& stop() { return op('.'); }
  // ('storage', torch.<type>, key, 'cpu', numel) then BINPERSID.
  PickleWriter& storage(const std::string& type, const std::string& key, int32_t numel) {
    mark().str("storage").global("torch", type).str(key).str("cpu").integer(numel).tuple();
    return op('Q');
  }
  // _rebuild_tensor_v2(<storage>, offset, sizes, strides, False, OrderedDict())
  PickleWriter& tensor(const std::string& type, const std::string& key, int32_t numel, int32_t offset,
                       const std::vector<int32_t>& sizes, const std::vector<int32_t>& strides) {
    global("torch._utils", "_rebuild_tensor_v2").mark();
    storage(type, key, numel).integer(offset);
    mark();
    for (int32_t v : sizes) integer(v);
    tuple().mark();
    for (int32_t v : strides) integer(v);
    tuple().op('\x89').global("collections", "OrderedDict").op(')').reduce();
    return tuple().reduce();
  }
  const std::string& bytes() const { return s_; }

 private:
  void le(uint64_t v, int n) {
    for (int k = 0; k < n; ++k) s_ += static_cast<char>((v >> (8 * k)) & 0xFF);
  }
  std::string s_;
};

// A torch.save-like zip around a data.pkl and storages.
inline std::string torch_zip(const std::string& pickle,
                             const std::vector<std::pair<std::string, std::string>>& storages = {}) {
  std::vector<ZipEntrySpec> entries{{"archive/data.pkl", pickle}};
  for (const auto& [key, data] : storages) entries.push_back({"archive/data/" + key, data});
  entries.push_back({"archive/version", "3\n"});
  return make_zip(entries);
}

}  // namespace ember::testing
