#pragma once
// The torchvision fixtures of the geometry tests
// (scripts/fixtures/vision_geometry.py): the manifest of cases, their
// parameters, and comparisons with a tolerance.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/vision/transforms/functional.h>

#include "npy.h"

namespace ember::testing {

inline std::string geometry_dir() { return fixture_path("vision/vision_geometry"); }

inline Tensor geometry_npy(const std::string& name) { return load_npy(geometry_dir() + "/" + name + ".npy"); }

struct GeometryCase {
  std::string name, op, input;
  std::map<std::string, std::string> params;

  bool has(const std::string& key) const { return params.count(key) && params.at(key) != "none"; }
  const std::string& str(const std::string& key) const {
    auto it = params.find(key);
    EXPECT_NE(it, params.end()) << name << " lacks " << key;
    static const std::string empty;
    return it == params.end() ? empty : it->second;
  }
  std::vector<double> doubles(const std::string& key) const {
    std::vector<double> out;
    if (!has(key)) return out;
    std::stringstream ss(str(key));
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(std::stod(item));
    return out;
  }
  std::vector<int64_t> ints(const std::string& key) const {
    std::vector<int64_t> out;
    for (double d : doubles(key)) out.push_back(static_cast<int64_t>(d));
    return out;
  }
  double number(const std::string& key) const { return std::stod(str(key)); }
  int64_t integer(const std::string& key) const { return std::stoll(str(key)); }
  bool flag(const std::string& key) const { return str(key) == "true"; }
  vision::transforms::InterpolationMode interpolation() const {
    return vision::transforms::interpolation_from_name(str("interpolation"), name);
  }
  Tensor image() const { return geometry_npy(input); }
  Tensor expected(int index = -1) const {
    return geometry_npy(index < 0 ? name : name + "_" + std::to_string(index));
  }
};

inline std::vector<GeometryCase> geometry_cases(const std::string& op) {
  std::ifstream f(geometry_dir() + "/manifest.tsv");
  EXPECT_TRUE(f.good()) << "no manifest in " << geometry_dir();
  std::vector<GeometryCase> cases;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    GeometryCase c;
    std::string params;
    std::getline(ss, c.name, '\t');
    std::getline(ss, c.op, '\t');
    std::getline(ss, c.input, '\t');
    std::getline(ss, params, '\t');
    if (c.op != op) continue;
    std::stringstream ps(params);
    std::string kv;
    while (std::getline(ps, kv, ';')) {
      const auto eq = kv.find('=');
      if (eq != std::string::npos) c.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    cases.push_back(std::move(c));
  }
  EXPECT_FALSE(cases.empty()) << "no " << op << " cases in the manifest";
  return cases;
}

// matrices.tsv: case -> (name -> values).
inline std::map<std::string, std::map<std::string, std::vector<double>>> geometry_matrices() {
  std::ifstream f(geometry_dir() + "/matrices.tsv");
  std::map<std::string, std::map<std::string, std::vector<double>>> out;
  std::string line;
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::string name, kind, values, item;
    std::getline(ss, name, '\t');
    std::getline(ss, kind, '\t');
    std::getline(ss, values, '\t');
    std::stringstream vs(values);
    std::vector<double>& v = out[name][kind];
    while (std::getline(vs, item, ',')) v.push_back(std::stod(item));
  }
  return out;
}

// The same image with channels last in memory (as io::decode_jpeg returns):
// [..., C, H, W] sizes, C of stride 1.
inline Tensor interleaved(const Tensor& img) {
  const int64_t n = img.dim();
  std::vector<int64_t> to_last, back;
  for (int64_t d = 0; d < n - 3; ++d) to_last.push_back(d);
  to_last.insert(to_last.end(), {n - 2, n - 1, n - 3});
  for (int64_t d = 0; d < n - 3; ++d) back.push_back(d);
  back.insert(back.end(), {n - 1, n - 3, n - 2});
  return img.permute(to_last).contiguous().permute(back);
}

struct Difference {
  double max_abs = 0;
  int64_t count = 0;  // elements differing by more than the tolerance
};

inline Difference difference(const Tensor& actual, const Tensor& expected, double tolerance) {
  const Tensor d = (actual.to(kFloat64) - expected.to(kFloat64)).abs();
  Difference out;
  out.max_abs = d.numel() ? d.max().item<double>() : 0.0;
  out.count = d.numel() ? (d > tolerance).sum().item<int64_t>() : 0;
  return out;
}

// Same shape and dtype, and every element within `tolerance`.
inline void expect_image_near(const Tensor& actual, const Tensor& expected, double tolerance, const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  const Difference d = difference(actual, expected, tolerance);
  EXPECT_LE(d.max_abs, tolerance) << what << ": " << d.count << " of " << actual.numel()
                                  << " elements differ by more than " << tolerance;
}

// The tolerance for a resampled image of this dtype: one unit for uint8, 1e-5 for float32.
inline double resample_tolerance(DType dtype) {
  return dtype == kUInt8 ? 1.0 : dtype == kFloat32 ? 1e-5 : 1e-10;
}

}  // namespace ember::testing
