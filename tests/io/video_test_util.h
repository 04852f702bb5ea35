#pragma once
// Helpers for the video tests: the fixture checksum, fixture records, and
// videos made at test time with the ffmpeg command-line tool.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io_test_util.h"

namespace ember::testing {

inline std::string io_video(const std::string& name) { return io_data("videos/" + name); }

// scripts/fixtures/io_video.py's checksum(): "s1:s2" in hex, s1 = sum of the bytes,
// s2 = sum of (i + 1) * byte_i, both mod 2^64.
inline std::string video_checksum(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data_ptr());
  const size_t n = static_cast<size_t>(c.numel()) * c.element_size();
  uint64_t s1 = 0, s2 = 0;
  for (size_t i = 0; i < n; ++i) {
    s1 += p[i];
    s2 += static_cast<uint64_t>(i + 1) * p[i];
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%llx:%llx", static_cast<unsigned long long>(s1),
                static_cast<unsigned long long>(s2));
  return buf;
}

inline std::string shape_string(const Tensor& t) {
  std::string s;
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? "x" : "") + std::to_string(t.size(i));
  return s;
}

// The fixture's lines, split at tabs.
inline std::vector<std::vector<std::string>> read_records(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> out;
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) fields.push_back(field);
    if (!line.empty() && line.back() == '\t') fields.emplace_back();
    out.push_back(std::move(fields));
  }
  return out;
}

inline double parse_double(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

inline bool have_ffmpeg_cli() {
  static const bool have = std::system("ffmpeg -hide_banner -version > /dev/null 2>&1") == 0;
  return have;
}

// Runs `ffmpeg -nostdin -y -loglevel error <args>`; true on success.
inline bool run_ffmpeg(const std::string& args) {
  return std::system(("ffmpeg -nostdin -y -hide_banner -loglevel error " + args).c_str()) == 0;
}

#define EMBER_REQUIRE_VIDEO()                                                         \
  do {                                                                                \
    if (!::ember::io::video_available()) GTEST_SKIP() << "built without FFmpeg";      \
  } while (0)

#define EMBER_REQUIRE_FFMPEG_CLI()                                                       \
  do {                                                                                   \
    if (!::ember::testing::have_ffmpeg_cli()) GTEST_SKIP() << "no ffmpeg command-line tool"; \
  } while (0)

}  // namespace ember::testing
