#pragma once
// Python-style formatting for modules' pretty_print (PyTorch's reprs).
#include <charconv>
#include <ostream>
#include <string>
#include <vector>

namespace ember::nn::detail {

// Python's repr of a float: shortest round-trip digits, ".0" for integers.
inline std::string py_float(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

inline const char* py_bool(bool b) { return b ? "True" : "False"; }

// A Python tuple of ints: "(1, 2)", "(1,)".
inline std::string py_tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// One value as itself (an int or a float given once), several as a tuple.
inline std::string py_ints(const std::vector<int64_t>& v) {
  return v.size() == 1 ? std::to_string(v[0]) : py_tuple(v);
}
inline std::string py_floats(const std::vector<double>& v) {
  if (v.size() == 1) return py_float(v[0]);
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + py_float(v[i]);
  return s + ")";
}

}  // namespace ember::nn::detail
