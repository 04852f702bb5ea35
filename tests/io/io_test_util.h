#pragma once
// Helpers for the io tests: test data paths, byte tensors, temp files.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/io/io.h>

namespace ember::testing {

inline std::string io_data(const std::string& relative) {
  return std::string(EMBER_TEST_DATA_DIR) + "/io/" + relative;
}

inline std::string io_image(const std::string& name) { return io_data("images/" + name); }

inline Tensor bytes_of(const std::vector<uint8_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kUInt8);
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size());
  return t;
}

inline std::vector<uint8_t> vector_of(const Tensor& t) {
  Tensor c = t.contiguous();
  const auto* p = c.data_ptr<uint8_t>();
  return std::vector<uint8_t>(p, p + c.numel());
}

inline std::vector<uint8_t> image_bytes(const std::string& name) {
  return vector_of(io::read_file(io_image(name)));
}

// PNG's CRC-32 (ISO 3309, as zlib's crc32).
inline uint32_t png_crc32(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c ^ 0xffffffffu;
}

inline void put_be32(std::vector<uint8_t>& v, size_t at, uint32_t x) {
  for (int i = 0; i < 4; ++i) v[at + i] = uint8_t(x >> (24 - 8 * i));
}

inline uint32_t get_be32(const std::vector<uint8_t>& v, size_t at) {
  return uint32_t(v[at]) << 24 | uint32_t(v[at + 1]) << 16 | uint32_t(v[at + 2]) << 8 | v[at + 3];
}

// Decodes, and returns "" or the ember::Error message (any other exception
// escapes and fails the test).
inline std::string decode_error(const Tensor& data, io::ImageReadMode mode = io::ImageReadMode::UNCHANGED) {
  try {
    io::decode_image(data, mode);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

// The ember::Error message f raises, or "" when it returns.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A file of ../shared/data (EMBER_SHARED_DATA overrides), found from the
// repository or a worktree beside it; tests skip when it is absent.
inline std::string shared_data(const std::string& rel) {
  if (const char* env = std::getenv("EMBER_SHARED_DATA")) return std::string(env) + "/" + rel;
  const std::string repo = std::string(EMBER_TEST_DATA_DIR) + "/../..";
  for (const char* up : {"/..", "/../.."}) {
    const std::string candidate = repo + up + "/shared/data/" + rel;
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return repo + "/../shared/data/" + rel;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A fresh path under the system temp folder, removed when the object dies.
struct TempPath {
  std::filesystem::path path;
  explicit TempPath(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("ember_io_" + std::to_string(::getpid()) + "_" + name)) {}
  ~TempPath() { std::filesystem::remove(path); }
  std::string str() const { return path.string(); }
};

}  // namespace ember::testing
