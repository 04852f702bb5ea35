#pragma once
// Shared helpers of the SentencePiece tests: the fixtures of
// scripts/fixtures/text_sp.py (tests/data/text/text_sp) and ../shared/data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sp_test_util {

inline std::string fixture(const std::string& name) {
  return std::string(EMBER_TEST_DATA_DIR) + "/text/text_sp/" + name;
}

// A file of ../shared/data (EMBER_SHARED_DATA overrides), found from the
// repository or a worktree beside it; "" when absent (the parity suite then
// instantiates the committed models only).
inline std::string shared_data(const std::string& rel) {
  if (const char* env = std::getenv("EMBER_SHARED_DATA")) {
    const std::string p = std::string(env) + "/" + rel;
    return std::filesystem::exists(p) ? p : "";
  }
  const std::string repo = std::string(EMBER_TEST_DATA_DIR) + "/../..";
  for (const char* up : {"/..", "/../.."}) {
    const std::string candidate = repo + up + "/shared/data/" + rel;
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return "";
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

inline std::vector<int> ints(const std::string& s) {
  std::vector<int> out;
  for (const std::string& t : split(s, ' ')) out.push_back(std::stoi(t));
  return out;
}

}  // namespace sp_test_util
