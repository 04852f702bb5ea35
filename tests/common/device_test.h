#pragma once
// Device-generic tests: a test body written once runs on every device type
// (TEST_P over OnEachDevice): the CPU, the test device (test_device_backend.cpp)
// and CUDA, each skipped where it is not available.
#include <gtest/gtest.h>

#include <string>

#include <ember/ember.h>

namespace ember::testing {

class OnEachDevice : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (device_count(GetParam().type) == 0) GTEST_SKIP() << GetParam() << " is not available in this build";
  }
  Device device() const { return GetParam(); }
  // t on the device under test.
  Tensor on_device(const Tensor& t) const { return t.to(device()); }
};

inline std::string device_param_name(const ::testing::TestParamInfo<Device>& info) {
  return std::string(device_type_info(info.param.type).name);
}

}  // namespace ember::testing

#define EMBER_INSTANTIATE_ON_EACH_DEVICE(Suite)                                                     \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::Values(::ember::kCPU, ::ember::kTestDevice, \
                                                             ::ember::kCUDA),                      \
                           ::ember::testing::device_param_name)
