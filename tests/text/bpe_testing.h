#pragma once
// Helpers shared by tests/text/test_bpe_*.cpp: the fixture folder of
// scripts/fixtures/text_bpe.py, file reading and writing, error checks.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <ember/core/error.h>

namespace bpe_testing {

inline const std::string kDir = std::string(EMBER_TEST_DATA_DIR) + "/text/text_bpe/";

inline std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// f raises an ember::Error whose message contains `needle`.
inline void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    FAIL() << "expected an ember::Error mentioning " << needle;
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Writes `contents` to a file named <prefix><name> in gtest's temp folder
// (a prefix per test file, since ctest runs the files' tests in parallel).
inline std::string write_temp(const std::string& prefix, const std::string& name, const std::string& contents) {
  const std::string path = ::testing::TempDir() + "/" + prefix + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

}  // namespace bpe_testing
