// Shared argument checks and saved-parameter conversions of the geometry transforms.
#include "transforms/geometry_options.h"

#include <cmath>
#include <sstream>

#include <ember/core/error.h>

namespace ember::vision::transforms::detail {
namespace {

template <class T>
std::string join(const std::vector<T>& v) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << "]";
  return s.str();
}

}  // namespace

std::string format_list(const std::vector<int64_t>& v) { return join(v); }
std::string format_list(const std::vector<double>& v) { return join(v); }

std::array<int64_t, 2> setup_size(const std::vector<int64_t>& size, const char* type) {
  EMBER_CHECK(size.size() == 1 || size.size() == 2, type, ": size must be one value or (h, w), got ",
              format_list(size));
  const std::array<int64_t, 2> hw = size.size() == 1 ? std::array<int64_t, 2>{size[0], size[0]}
                                                      : std::array<int64_t, 2>{size[0], size[1]};
  EMBER_CHECK(hw[0] > 0 && hw[1] > 0, type, ": size must be positive, got ", format_list(size));
  return hw;
}

std::vector<double> setup_angle(const std::vector<double>& x, const char* type, const char* name,
                                const std::vector<size_t>& allowed_sizes) {
  for (double v : x) EMBER_CHECK(std::isfinite(v), type, ": ", name, " must be finite, got ", format_list(x));
  if (x.size() == 1) {
    EMBER_CHECK(x[0] >= 0, type, ": if ", name, " is a single number, it must be non-negative, got ", x[0]);
    return {-x[0], x[0]};
  }
  bool allowed = false;
  for (size_t n : allowed_sizes) allowed = allowed || x.size() == n;
  std::ostringstream sizes;
  for (size_t i = 0; i < allowed_sizes.size(); ++i) sizes << (i ? " or " : "") << allowed_sizes[i];
  EMBER_CHECK(allowed, type, ": ", name, " must be one number or a sequence of length ", sizes.str(), ", got ",
              format_list(x));
  for (size_t i = 0; i + 1 < x.size(); i += 2)
    EMBER_CHECK(x[i] <= x[i + 1], type, ": ", name, " ranges must be (min, max), got ", format_list(x));
  return x;
}

std::array<double, 2> checked_range(const std::array<double, 2>& r, const char* type, const char* name) {
  EMBER_CHECK(std::isfinite(r[0]) && std::isfinite(r[1]) && r[0] <= r[1], type, ": ", name,
              " must be (min, max) with min <= max, got (", r[0], ", ", r[1], ")");
  return r;
}

void check_fill(const std::vector<double>& fill, const char* type) {
  for (double v : fill) EMBER_CHECK(std::isfinite(v), type, ": fill must be finite, got ", format_list(fill));
}

void check_fill_channels(const std::vector<double>& fill, int64_t channels, const char* type) {
  EMBER_CHECK(fill.size() <= 1 || static_cast<int64_t>(fill.size()) == channels, type, ": fill has ", fill.size(),
              " values ", format_list(fill), " for an image of ", channels, " channels");
}

void check_probability(double p, const char* type) {
  EMBER_CHECK(p >= 0 && p <= 1, type, ": p must be in [0, 1], got ", p);
}

IValue int_list(const std::vector<int64_t>& v) { return std::vector<double>(v.begin(), v.end()); }

IValue list_or_none(const std::vector<double>& v) { return v.empty() ? IValue() : IValue(v); }

IValue int_list_or_none(const std::vector<int64_t>& v) { return v.empty() ? IValue() : int_list(v); }

std::vector<double> list_param_or_empty(const Params& p, const std::string& key, const std::string& type) {
  return param<std::optional<std::vector<double>>>(p, key, type).value_or(std::vector<double>{});
}

std::vector<int64_t> int_list_param_or_empty(const Params& p, const std::string& key, const std::string& type) {
  const auto it = p.find(key);
  if (it != p.end() && it->second.is_none()) return {};
  return param<std::vector<int64_t>>(p, key, type);
}

std::array<double, 2> pair_param(const Params& p, const std::string& key, const std::string& type) {
  const auto v = param<std::pair<double, double>>(p, key, type);
  return {v.first, v.second};
}

InterpolationMode interpolation_param(const Params& p, const std::string& type) {
  return interpolation_from_name(param<std::string>(p, "interpolation", type), type);
}

}  // namespace ember::vision::transforms::detail
