#pragma once
// Shared by the classification model tests: fixtures of
// scripts/fixtures/models_classification.py, the hashed weights both sides
// compute, architecture files, tolerance checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/models/classifier.h>

#include "npy.h"

namespace ember::testing {

inline std::string models_fixture_path(const std::string& name) {
  return fixture_path("models/models_classification/" + name);
}
inline Tensor models_fixture(const std::string& name) { return load_npy(models_fixture_path(name + ".npy")); }

// ---- hashed weights (Note: the same arithmetic as hashed_uniform/hashed_rule
// in scripts/fixtures/models_classification.py) ----

// The integer of element j of state_dict entry k, in [-2^31, 2^31).
inline int64_t hashed_int(uint64_t k, uint64_t j) {
  uint32_t x = static_cast<uint32_t>(j * 0x9E3779B1ull + (k + 1) * 0x85EBCA77ull);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return static_cast<int64_t>(x) - (int64_t(1) << 31);
}

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// (offset, half-width) of a state_dict entry.
inline std::pair<float, double> hashed_rule(const std::string& name, IntArrayRef shape) {
  if (shape.size() >= 2) {
    int64_t fan_in = 1;
    for (size_t d = 1; d < shape.size(); ++d) fan_in *= shape[d];
    return {0.0f, std::sqrt(3.0 / static_cast<double>(fan_in))};
  }
  if (ends_with(name, "running_var")) return {1.0f, 0.5};
  if (ends_with(name, "running_mean")) return {0.0f, 0.2};
  if (ends_with(name, "weight")) return {1.0f, 0.25};
  return {0.0f, 0.1};
}

// Sets every parameter and buffer of `model` to the hashed values (the model's
// tensors must be contiguous in some layout: values are written in logical
// row-major order through a contiguous copy).
inline void fill_hashed(nn::Module& model) {
  NoGradGuard no_grad;
  const auto sd = model.state_dict();
  uint64_t k = 0;
  for (const auto& [name, t] : sd) {
    Tensor target = t;
    if (!t.is_floating_point()) {
      target.fill_(static_cast<int64_t>(k++));
      continue;
    }
    const auto [offset, half] = hashed_rule(name, t.sizes());
    const double scale = half / 2147483648.0;
    Tensor v = empty(t.sizes(), kFloat32);
    float* p = v.data_ptr<float>();
    const int64_t n = v.numel();
    for (int64_t j = 0; j < n; ++j) {
      // One correctly rounded double multiply, rounded to float, then a float add.
      const float u = static_cast<float>(static_cast<double>(hashed_int(k, static_cast<uint64_t>(j))) * scale);
      p[j] = u + offset;
    }
    target.copy_(v);
    ++k;
  }
}

// ---- architecture files: "key dtype d0,d1,..." per state_dict entry ----

struct ArchEntry {
  std::string key, dtype;
  std::vector<int64_t> shape;
};

inline std::vector<ArchEntry> read_arch(const std::string& model) {
  std::ifstream f(models_fixture_path("arch_" + model + ".txt"));
  EMBER_CHECK(f.good(), "read_arch: no architecture file for ", model);
  std::vector<ArchEntry> entries;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    ArchEntry e;
    std::string dims;
    ss >> e.key >> e.dtype;
    ss >> dims;  // empty for 0-d entries
    std::stringstream ds(dims);
    std::string d;
    while (std::getline(ds, d, ',')) e.shape.push_back(std::stoll(d));
    entries.push_back(std::move(e));
  }
  return entries;
}

inline std::string arch_dtype(DType t) {
  switch (t) {
    case kFloat32: return "float32";
    case kInt64: return "int64";
    default: return "other";
  }
}

// Every state_dict entry of `model` has torchvision's key, dtype and shape, in order.
inline void expect_torchvision_state_dict(const nn::Module& model, const std::string& name) {
  const auto expected = read_arch(name);
  const auto sd = model.state_dict();
  ASSERT_EQ(sd.size(), expected.size()) << name;
  size_t i = 0;
  for (const auto& [key, t] : sd) {
    const ArchEntry& e = expected[i++];
    ASSERT_EQ(key, e.key) << name << " entry " << i - 1;
    EXPECT_EQ(arch_dtype(t.dtype()), e.dtype) << name << " " << key;
    EXPECT_EQ(t.sizes().vec(), e.shape) << name << " " << key;
  }
}

// ---- comparisons ----

// |actual - expected| <= rtol * max|expected| elementwise: a tolerance
// relative to the tensor's scale (values near zero in a tensor of large
// values carry the others' rounding).
inline void expect_close_to_scale(const Tensor& actual, const Tensor& expected, double rtol,
                                  const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const Tensor a = actual.detach().to(kFloat64), e = expected.to(kFloat64);
  const double scale = e.abs().max().item<double>();
  const double err = (a - e).abs().max().item<double>();
  EXPECT_LE(err, rtol * scale) << what << ": max error " << err << " vs scale " << scale << " (relative "
                               << err / scale << ")";
}

}  // namespace ember::testing
