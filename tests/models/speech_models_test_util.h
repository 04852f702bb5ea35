#pragma once
// Shared by the speech model tests: fixtures of scripts/fixtures/models_speech.py
// and comparisons against torch's float64 runs with torch's own float32 error.
#include <gtest/gtest.h>

#include <string>

#include <ember/ember.h>

#include "models_test_util.h"
#include "npy.h"

namespace ember::testing {

inline std::string speech_fixture_path(const std::string& name) {
  return fixture_path("models/models_speech/" + name);
}
inline Tensor speech_fixture(const std::string& name) { return load_npy(speech_fixture_path(name + ".npy")); }

// Every state_dict entry of `model` has torchaudio's key, dtype and shape, in
// order (arch_<name>.txt of models_speech.py).
inline void expect_torchaudio_state_dict(const nn::Module& model, const std::string& name) {
  std::ifstream f(speech_fixture_path("arch_" + name + ".txt"));
  ASSERT_TRUE(f.good()) << "no architecture file for " << name;
  std::vector<ArchEntry> expected;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    ArchEntry e;
    std::string dims;
    ss >> e.key >> e.dtype >> dims;
    std::stringstream ds(dims);
    std::string d;
    while (std::getline(ds, d, ',')) e.shape.push_back(std::stoll(d));
    expected.push_back(std::move(e));
  }
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

// Against the float64 reference `<name>` with `<name>_f32err`, torch's own
// float32 error (save_with_f32_error): a float32 run within `factor` times
// torch's error or `floor` of the scale, a float64 run within 1e-9 of the scale.
inline void expect_within_torch_error_speech(const Tensor& actual, const std::string& name, double factor = 4,
                                             double floor = 2e-5) {
  const Tensor expected = speech_fixture(name);
  ASSERT_EQ(actual.sizes(), expected.sizes()) << name;
  const Tensor a = actual.detach().to(kFloat64), e = expected.to(kFloat64);
  const double scale = e.abs().max().item<double>();
  const double err = (a - e).abs().max().item<double>();
  const double torch_err = speech_fixture(name + "_f32err").to(kFloat64).max().item<double>();
  const double allowed = actual.dtype() == kFloat64 ? 1e-9 * scale : std::max(factor * torch_err, floor * scale);
  EXPECT_LE(err, allowed) << name << ": max error " << err << " vs scale " << scale << " (relative " << err / scale
                          << "); torch's float32 error " << torch_err;
}

// Each parameter's gradient norm (named_parameters order) against `<name>`
// (float64 norms) and `<name>_f32err`.
inline void expect_grad_norms(const nn::Module& model, const std::string& name, DType dtype) {
  const Tensor norms = speech_fixture(name);
  const Tensor torch_errors = speech_fixture(name + "_f32err");
  const double largest = norms.max().item<double>();
  int64_t i = 0;
  for (const auto& [pname, p] : model.named_parameters()) {
    ASSERT_LT(i, norms.numel()) << name;
    ASSERT_TRUE(p.grad().defined()) << name << " " << pname;
    const double ours = p.grad().to(kFloat64).norm().item<double>();
    const double ref = norms[i].item<double>(), torch_err = torch_errors[i].item<double>();
    ++i;
    const double allowed =
        dtype == kFloat64 ? 1e-9 * largest : std::max({4 * torch_err, 2e-5 * ref, 1e-7 * largest});
    EXPECT_LE(std::abs(ours - ref), allowed) << name << ": gradient norm of " << pname << " is " << ours
                                             << ", float64 reference " << ref << ", torch's float32 error " << torch_err;
  }
  EXPECT_EQ(i, norms.numel()) << name;
}

}  // namespace ember::testing
