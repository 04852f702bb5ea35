// read_file / write_file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "io/io_test_util.h"

using namespace ember;
using namespace ember::testing;

TEST(IoFile, WriteThenReadRoundTrips) {
  TempPath p("roundtrip.bin");
  std::vector<uint8_t> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i * 7 + 3);
  io::write_file(p.str(), bytes_of(v));
  Tensor back = io::read_file(p.str());
  EXPECT_EQ(back.dim(), 1);
  EXPECT_EQ(back.dtype(), kUInt8);
  EXPECT_EQ(vector_of(back), v);
  EXPECT_EQ(std::filesystem::file_size(p.path), v.size());
}

TEST(IoFile, WritesNonContiguousData) {
  TempPath p("strided.bin");
  Tensor t = arange(20, kInt64).to(kUInt8);
  io::write_file(p.str(), t.slice(0, 1, 20, 3));  // 1, 4, 7, ..., 19
  EXPECT_EQ(vector_of(io::read_file(p.str())), (std::vector<uint8_t>{1, 4, 7, 10, 13, 16, 19}));
}

TEST(IoFile, EmptyFile) {
  TempPath p("empty.bin");
  io::write_file(p.str(), empty({0}, kUInt8));
  Tensor back = io::read_file(p.str());
  EXPECT_EQ(back.numel(), 0);
  EXPECT_EQ(back.dtype(), kUInt8);
}

TEST(IoFile, ReadsTheBytesOnDisk) {
  const std::string path = io_image("hopper.jpg");
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> expected((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(vector_of(io::read_file(path)), expected);
}

TEST(IoFile, BadInputRaises) {
  EXPECT_THROW(io::read_file("/nonexistent/ember/file.bin"), Error);
  EXPECT_THROW(io::read_file(std::filesystem::temp_directory_path().string()), Error);
  TempPath p("bad.bin");
  EXPECT_THROW(io::write_file(p.str(), zeros({3}, kFloat32)), Error);
  EXPECT_THROW(io::write_file(p.str(), zeros({2, 3}, kUInt8)), Error);
  EXPECT_THROW(io::write_file("/nonexistent/ember/out.bin", zeros({3}, kUInt8)), Error);
  try {
    io::read_file("/nonexistent/ember/file.bin");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("read_file"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ember/file.bin"), std::string::npos);
  }
}

TEST(IoFile, ReadingADirectoryOrDeviceRaises) {
  // fopen accepts a directory and reports its size as 2^63 - 1 on ext4: the
  // check must come before any allocation.
  const std::string dir = std::filesystem::temp_directory_path().string();
  try {
    io::read_file(dir);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(io::read_image(dir), Error);
  EXPECT_THROW(io::read_file("/dev/null"), Error);
}
