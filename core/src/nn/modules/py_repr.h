#pragma once
// Python-style formatting for modules' pretty_print (PyTorch's reprs).
#include <charconv>
#include <ostream>
#include <string>
#include <vector>

namespace ember::nn::detail {

// Python's repr of a float: shortest round-trip digits, in fixed notation
// when the decimal exponent is in [-4, 16) (0.0001, 1e-05, 1e+16), ".0" for
// integers.
inline std::string py_float(double v) {
  char buf[400];
  auto sci = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, sci.ptr);
  const size_t e = s.find('e');
  if (e != std::string::npos) {
    const int exp = std::stoi(s.substr(e + 1));
    if (exp < -4 || exp >= 16) {
      // Python writes at least two exponent digits and a sign: 1e-05, 1e+16.
      std::string mant = s.substr(0, e), digits = s.substr(e + 2);
      while (digits.size() < 2) digits = "0" + digits;
      return mant + "e" + (exp < 0 ? "-" : "+") + digits;
    }
    auto fix = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
    s.assign(buf, fix.ptr);
  }
  if (s.find_first_of(".ni") == std::string::npos) s += ".0";
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
