#pragma once
// Argument checks and saved-parameter conversions shared by the geometry
// transforms (torchvision's _setup_size, _setup_angle and friends).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ember/vision/transforms/interpolation.h"
#include "ember/vision/transforms/serialize.h"

namespace ember::vision::transforms::detail {

// "[1, 2, 3]" for error messages.
std::string format_list(const std::vector<int64_t>& v);
std::string format_list(const std::vector<double>& v);

// _setup_size: {s} -> {s, s}, {h, w} as is; positive values.
std::array<int64_t, 2> setup_size(const std::vector<int64_t>& size, const char* type);

// _setup_angle: {d} -> {-d, d} (d >= 0), or a sequence of one of the allowed
// lengths, each pair ordered (min <= max).
std::vector<double> setup_angle(const std::vector<double>& x, const char* type, const char* name,
                                const std::vector<size_t>& allowed_sizes);

// A (min, max) pair with min <= max, finite.
std::array<double, 2> checked_range(const std::array<double, 2>& r, const char* type, const char* name);

// fill: one value or one per channel (checked against the image in forward).
void check_fill(const std::vector<double>& fill, const char* type);
void check_fill_channels(const std::vector<double>& fill, int64_t channels, const char* type);

void check_probability(double p, const char* type);

// Saved values.
IValue int_list(const std::vector<int64_t>& v);
IValue list_or_none(const std::vector<double>& v);  // None when empty
IValue int_list_or_none(const std::vector<int64_t>& v);
std::vector<double> list_param_or_empty(const Params& p, const std::string& key, const std::string& type);
std::vector<int64_t> int_list_param_or_empty(const Params& p, const std::string& key, const std::string& type);
std::array<double, 2> pair_param(const Params& p, const std::string& key, const std::string& type);
InterpolationMode interpolation_param(const Params& p, const std::string& type);

}  // namespace ember::vision::transforms::detail
