#pragma once
// Reads .npy files (NumPy's format, written by scripts/fixtures/*.py with
// Debian's python3-torch/numpy) into Ember tensors. Test-only: fixtures are
// generated once and committed; tests never run Python.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include <ember/ember.h>

namespace ember::testing {

inline std::string fixture_path(const std::string& relative) {
  return std::string(EMBER_TEST_DATA_DIR) + "/" + relative;
}

inline Tensor load_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EMBER_CHECK(f.good(), "load_npy: cannot open ", path);
  char magic[6];
  f.read(magic, 6);
  EMBER_CHECK(f && std::string(magic, 6) == "\x93NUMPY", "load_npy: ", path, " is not a .npy file");
  uint8_t version[2];
  f.read(reinterpret_cast<char*>(version), 2);
  uint32_t header_len = 0;
  if (version[0] == 1) {
    uint16_t len16;
    f.read(reinterpret_cast<char*>(&len16), 2);
    header_len = len16;
  } else {
    f.read(reinterpret_cast<char*>(&header_len), 4);
  }
  std::string header(header_len, '\0');
  f.read(header.data(), header_len);
  auto field = [&](const std::string& key) {
    auto pos = header.find("'" + key + "':");
    EMBER_CHECK(pos != std::string::npos, "load_npy: no ", key, " in header of ", path);
    return header.substr(pos + key.size() + 3);
  };
  std::string descr = field("descr");
  descr = descr.substr(descr.find('\'') + 1);
  descr = descr.substr(0, descr.find('\''));
  EMBER_CHECK(field("fortran_order").find("False") < 3, "load_npy: Fortran order unsupported in ", path);
  std::string shape_str = field("shape");
  shape_str = shape_str.substr(shape_str.find('(') + 1);
  shape_str = shape_str.substr(0, shape_str.find(')'));
  std::vector<int64_t> shape;
  std::stringstream ss(shape_str);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item.find_first_not_of(' ') != std::string::npos) shape.push_back(std::stoll(item));
  DType dtype;
  const std::string code = descr.substr(1);
  if (code == "b1") dtype = kBool;
  else if (code == "u1") dtype = kUInt8;
  else if (code == "i1") dtype = kInt8;
  else if (code == "i2") dtype = kInt16;
  else if (code == "i4") dtype = kInt32;
  else if (code == "i8") dtype = kInt64;
  else if (code == "f2") dtype = kFloat16;
  else if (code == "f4") dtype = kFloat32;
  else if (code == "f8") dtype = kFloat64;
  else if (code == "c8") dtype = kComplex64;
  else if (code == "c16") dtype = kComplex128;
  else EMBER_FAIL("load_npy: unsupported dtype ", descr, " in ", path);
  EMBER_CHECK(descr[0] != '>', "load_npy: big-endian data unsupported in ", path);
  Tensor t = empty(shape, dtype);
  f.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  EMBER_CHECK(f.good() || t.nbytes() == 0, "load_npy: truncated data in ", path);
  return t;
}

}  // namespace ember::testing
