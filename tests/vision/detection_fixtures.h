#pragma once
// The torchvision fixtures of the detection op tests
// (scripts/fixtures/vision_detection_ops.py) and the comparisons they use.
#include <gtest/gtest.h>

#include <string>

#include <ember/ember.h>

#include "npy.h"

namespace ember::testing {

inline Tensor det_npy(const std::string& name) {
  return load_npy(fixture_path("vision/vision_detection_ops/" + name + ".npy"));
}

inline std::string det_path(const std::string& name) {
  return fixture_path("vision/vision_detection_ops/" + name);
}

// Same shape, and every value within atol + rtol * |expected| (NaN where the
// reference has NaN); reports the worst element.
inline void expect_close(const Tensor& actual, const Tensor& expected, double atol, double rtol,
                         const std::string& what) {
  ASSERT_TRUE(actual.defined()) << what << ": undefined";
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const Tensor a = actual.detach().to(kFloat64).contiguous(), e = expected.to(kFloat64).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pe = e.data_ptr<double>();
  double worst = 0;
  int64_t worst_at = -1;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (std::isnan(pe[i])) {
      ASSERT_TRUE(std::isnan(pa[i])) << what << ": element " << i << " is " << pa[i] << ", expected NaN";
      continue;
    }
    const double excess = std::abs(pa[i] - pe[i]) - (atol + rtol * std::abs(pe[i]));
    if (excess > worst || std::isnan(pa[i])) {
      worst = std::isnan(pa[i]) ? INFINITY : excess;
      worst_at = i;
    }
  }
  EXPECT_LT(worst_at, 0) << what << ": element " << worst_at << " is " << pa[worst_at] << ", expected " << pe[worst_at]
                         << " (atol " << atol << ", rtol " << rtol << ")";
}

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// sum(out * gout) backward; the gradients of `inputs`.
inline std::vector<Tensor> grads_of(const Tensor& out, const Tensor& gout, const std::vector<Tensor>& inputs) {
  return autograd::grad({(out * gout).sum()}, inputs, {}, std::nullopt, false, true);
}

}  // namespace ember::testing
