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

namespace ember::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() /
           ("ember_serialize_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

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
