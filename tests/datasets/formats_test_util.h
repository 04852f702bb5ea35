#pragma once
// Helpers for the dataset-format tests: file writers (TempDir is temp_dir.h's), the
// committed fixture tree (tests/data/datasets/datasets_formats, written by
// scripts/fixtures/datasets_formats.py with torchvision 0.14) and its
// expectations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/serialize/json.h>

#include "npy.h"
#include "temp_dir.h"

namespace ember::testing {

inline std::string formats_dir() { return fixture_path("datasets/datasets_formats"); }

inline Tensor formats_npy(const std::string& name) {
  return load_npy(formats_dir() + "/" + name + ".npy");
}

inline const IValue& formats_expected() {
  static const IValue value = [] {
    std::ifstream f(formats_dir() + "/expected.json", std::ios::binary);
    EMBER_CHECK(f.good(), "cannot open expected.json");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return serialize::json::parse(text, "expected.json");
  }();
  return value;
}

// expected["a"]["b"]...
inline const IValue& at(const IValue& v, std::string_view key) {
  const IValue* m = v.find(key);
  EMBER_CHECK(m, "expected.json: no member ", key);
  return *m;
}

inline void write_bytes(const std::string& path, std::string_view bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EMBER_CHECK(f.good(), "cannot write ", path);
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EMBER_CHECK(f.good(), "cannot open ", path);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline void copy_tree(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(to);
  std::filesystem::copy(
      from, to,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
}

// A gzip stream of `data` in deflate's stored (uncompressed) blocks, so tests
// can make gzip files of any content without linking zlib.
inline std::string gzip_stored(std::string_view data) {
  uint32_t table[256];
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : data) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  crc ^= 0xFFFFFFFFu;
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
  size_t pos = 0;
  do {
    const size_t n = std::min<size_t>(data.size() - pos, 65535);
    const bool last = pos + n == data.size();
    out += static_cast<char>(last ? 1 : 0);
    out += static_cast<char>(n & 0xFF);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(~n & 0xFF);
    out += static_cast<char>((~n >> 8) & 0xFF);
    out.append(data.substr(pos, n));
    pos += n;
  } while (pos < data.size());
  const uint32_t size = static_cast<uint32_t>(data.size());
  for (uint32_t v : {crc, size})
    for (int k = 0; k < 4; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
  return out;
}

inline bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  return a.equal(b);
}

// The message of the ember::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace ember::testing

// EXPECT that `statement` throws an ember::Error whose message contains every
// one of the given substrings.
#define EXPECT_EMBER_ERROR(statement, ...)                                           \
  do {                                                                               \
    const std::string _msg = ::ember::testing::error_of([&] { (void)(statement); }); \
    EXPECT_FALSE(_msg.empty()) << "no ember::Error from " #statement;                \
    for (const char* _part : {__VA_ARGS__})                                          \
      EXPECT_NE(_msg.find(_part), std::string::npos)                                 \
          << "message \"" << _msg << "\" lacks \"" << _part << "\"";                 \
  } while (0)
