#pragma once
// Helpers for the io tests: test data paths, byte tensors, temp files.
#include <cstdint>
#include <filesystem>
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
