// The device-backend contract (docs/architecture.md "Device backends"), checked
// on the test device: device types, allocators per (type, index), guards and
// streams, the copy slot behind to()/cpu()/item()/copy_, host access outside
// kernel slots, and gradients that flow back across devices.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "kernels/slots/kernel_slot.h"
#include "kernels/slots/elementwise_info.h"
#include "test_device_backend.h"

using namespace ember;
using ember::testing::test_device_stats;

namespace device_contract_test {

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.cpu().to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

TEST(DeviceTypes, TableNamesParseAndPrint) {
  for (const DeviceTypeInfo& info : kDeviceTypeInfo) {
    Device d{std::string(info.name)};
    EXPECT_EQ(d.type, info.type);
    EXPECT_EQ(d.index, -1);
    EXPECT_EQ(Device(std::string(info.name) + ":3").str(), std::string(info.name) + ":3");
  }
  EXPECT_EQ(Device("test:0"), kTestDevice);
  EXPECT_TRUE(kCPU.is_host_accessible());
  EXPECT_FALSE(kTestDevice.is_host_accessible());
  EXPECT_FALSE(kCUDA.is_host_accessible());
  try {
    Device bad("tpu:0");
    FAIL() << "parsed tpu";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'test'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tpu:0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Device("test:x"), Error);
  EXPECT_THROW(Device("test:-1"), Error);
}

TEST(DeviceAllocators, PerTypeAndIndexWithPinnedHostKind) {
  EXPECT_EQ(get_allocator(kCPU), cpu_allocator());
  Allocator* test = get_allocator(kTestDevice);
  EXPECT_EQ(test->device(), kTestDevice);
  EXPECT_EQ(get_allocator(Device(DeviceType::Test)), test) << "index -1 resolves to the current device";
  // Pinned host memory is host memory (device cpu), from the backend's allocator.
  Allocator* pinned = get_allocator(kTestDevice, AllocatorKind::PinnedHost);
  EXPECT_NE(pinned, test);
  EXPECT_TRUE(pinned->device().is_cpu());
  EXPECT_EQ(get_allocator(kCPU, AllocatorKind::PinnedHost), cpu_allocator());
  EXPECT_THROW(register_allocator(kCPU, test), Error);
  EXPECT_THROW(register_allocator(Device(DeviceType::Test, 64), test), Error);
  EXPECT_THROW(get_allocator(Device(DeviceType::Test, 70)), Error);
  // A device with no backend: a clear error, not a crash.
  if (device_count(DeviceType::CUDA) == 0) {
    try {
      empty({2}, TensorOptions(kFloat32).device(kCUDA));
      FAIL() << "allocated on cuda without a backend";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
    }
  }
  // An allocation for index 1 falls back to the type's allocator (index -1 registration).
  EXPECT_EQ(get_allocator(Device(DeviceType::Test, 1)), test);
}

TEST(DeviceAllocators, TensorsOnTheTestDeviceUseItsMemory) {
  const size_t before = test_device_stats().live_bytes;
  {
    Tensor t = empty({4, 5}, TensorOptions(kFloat32).device(kTestDevice));
    EXPECT_EQ(t.device(), kTestDevice);
    EXPECT_EQ(test_device_stats().live_bytes, before + 80);
  }
  EXPECT_EQ(test_device_stats().live_bytes, before) << "freed through the allocator that made it";
}

TEST(DeviceGuards, SynchronousDevicesHaveOneDeviceAndStream) {
  EXPECT_EQ(device_count(DeviceType::CPU), 1);
  EXPECT_EQ(device_count(DeviceType::Test), 1);
  EXPECT_EQ(resolve_device(Device(DeviceType::Test)), kTestDevice);
  EXPECT_EQ(resolve_device(kCPU), kCPU);
  Stream s = current_stream(kTestDevice);
  EXPECT_EQ(s.device, kTestDevice);
  EXPECT_EQ(s.id, 0u);
  {
    DeviceGuard g(kTestDevice);
    StreamGuard sg(s);
    EXPECT_EQ(current_stream(Device(DeviceType::Test)), s);
    synchronize(kTestDevice);
  }
  EXPECT_THROW(DeviceGuard(Device(DeviceType::Test, 1)), Error);
  EXPECT_THROW(StreamGuard(Stream{kTestDevice, 7}), Error);
  { DeviceGuard on_cpu(kCPU); }  // a no-op
  if (device_count(DeviceType::CUDA) == 0) {
    EXPECT_THROW({ DeviceGuard on_cuda(kCUDA); }, Error);
  }
}

TEST(DeviceKernelSlots, TheTestDeviceHasEveryKernel) {
  auto missing = missing_kernels(DeviceType::Test);
  EXPECT_TRUE(missing.empty()) << "first missing: " << (missing.empty() ? "" : missing[0]);
}

// missing_kernels names single ops of a family slot, not only empty slots: a
// backend whose unary kernel lacks one op for one dtype is told which.
TEST(DeviceKernelSlots, MissingKernelsAreListedPerOpAndDtype) {
  std::array<uint32_t, kNumUnaryOps> partial = kUnaryOpDTypes;
  const size_t erf = static_cast<size_t>(UnaryOp::Erf);
  partial[erf] &= ~dtype_bit(kFloat16);
  unary_slot.set_op_dtypes(DeviceType::Test, partial.data());
  auto missing = missing_kernels(DeviceType::Test);
  const bool float16 = unary_slot.supports(kTestDevice, static_cast<int>(erf), kFloat16);
  const bool float32 = unary_slot.supports(kTestDevice, static_cast<int>(erf), kFloat32);
  unary_slot.set_op_dtypes(DeviceType::Test, kUnaryOpDTypes.data());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "unary: erf (float16)");
  EXPECT_FALSE(float16);
  EXPECT_TRUE(float32);
  EXPECT_TRUE(missing_kernels(DeviceType::Test).empty());
}

TEST(DeviceCopies, ToAndCpuRoundTripValuesDtypesAndLayouts) {
  Tensor x = arange(24, kFloat64).reshape({2, 3, 4}).mul(0.5).sub(3);
  const size_t copies = test_device_stats().device_copies;
  Tensor d = x.to(kTestDevice);
  EXPECT_EQ(d.device(), kTestDevice);
  EXPECT_GT(test_device_stats().device_copies, copies) << "bytes cross through the copy slot";
  EXPECT_EQ(values_of(d), values_of(x));
  // Converting and restriding on the way, both directions.
  Tensor dt = x.transpose(0, 2).to(kTestDevice, kFloat32);
  EXPECT_EQ(dt.dtype(), kFloat32);
  EXPECT_EQ(dt.sizes(), x.transpose(0, 2).sizes());
  EXPECT_EQ(values_of(dt), values_of(x.transpose(0, 2).to(kFloat32)));
  Tensor back = d.transpose(1, 2).to(kCPU, kInt32);
  EXPECT_TRUE(back.is_cpu());
  EXPECT_EQ(values_of(back), values_of(x.transpose(1, 2).to(kInt32)));
  // copy_ into a strided destination on the other device, with broadcasting.
  Tensor dst = zeros({3, 4}, TensorOptions(kFloat32).device(kTestDevice)).t();
  dst.copy_(arange(3, kFloat32));
  EXPECT_EQ(values_of(dst), values_of(arange(3, kFloat32).expand({4, 3})));
  Tensor host = zeros({4, 3});
  host.copy_(dst);
  EXPECT_EQ(values_of(host), values_of(dst));
  EXPECT_THROW(host.copy_(zeros({5}, TensorOptions().device(kTestDevice))), Error);
}

TEST(DeviceCopies, ConjugateAndNegativeViewsCrossAsTheirValues) {
  Tensor z = complex(arange(6, kFloat32), arange(6, kFloat32).neg());
  Tensor on_dev = z.conj().to(kTestDevice);
  EXPECT_TRUE(equal(on_dev.cpu(), z.conj().resolve_conj()));
  Tensor dz = z.to(kTestDevice);
  EXPECT_TRUE(equal(dz.conj().cpu(), z.conj().resolve_conj()));
  EXPECT_TRUE(equal(dz.conj().imag().cpu(), z.imag().neg()));
  EXPECT_EQ(dz.conj()[2].item().toComplexDouble(), std::complex<double>(2, 2));
}

TEST(DeviceHostAccess, DataPtrOutsideAKernelSlotRaises) {
  Tensor t = ones({3}, TensorOptions().device(kTestDevice));
  try {
    (void)t.data_ptr<float>();
    FAIL() << "read test-device memory on the host";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test:0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".cpu()"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)t.data_ptr(), Error);
  EXPECT_EQ(t.sum().item<float>(), 3.0f) << "item() copies through the slot";
  {
    KernelSlotScope inside;
    EXPECT_NO_THROW((void)t.data_ptr<float>());
  }
  Tensor c = t.cpu();
  EXPECT_EQ(c.data_ptr<float>()[1], 1.0f);
}

TEST(DeviceAutograd, GradientsFlowBackAcrossDevices) {
  Tensor x = arange(4, kFloat64).requires_grad_(true);
  Tensor y = (x.to(kTestDevice) * 3).sum();
  EXPECT_EQ(y.device(), kTestDevice);
  y.backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_TRUE(x.grad().is_cpu()) << "the gradient lives where its input does";
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{3, 3, 3, 3}));
  // copy_ from a CPU leaf into a device tensor.
  Tensor a = ones({2}, kFloat64).requires_grad_(true);
  Tensor b = zeros({2}, TensorOptions(kFloat64).device(kTestDevice));
  b.copy_(a * 2);
  b.sum().backward();
  EXPECT_TRUE(a.grad().is_cpu());
  EXPECT_EQ(values_of(a.grad()), (std::vector<double>{2, 2}));
  // A leaf on the device.
  Tensor w = full({3}, 2.0, TensorOptions(kFloat64).device(kTestDevice)).requires_grad_(true);
  (w * w).sum().backward();
  EXPECT_EQ(w.grad().device(), kTestDevice);
  EXPECT_EQ(values_of(w.grad()), (std::vector<double>{4, 4, 4}));
}

TEST(DeviceFactories, HostComputedFactoriesLandOnTheDevice) {
  const TensorOptions o = TensorOptions(kFloat32).device(kTestDevice);
  for (const Tensor& t : {arange(5, o), linspace(0, 1, 5, o), logspace(0, 1, 5, 10.0, o), eye(3, o), zeros({2}, o),
                          ones({2}, o), full({2}, 3, o), rand({3}, o), randn({3}, o), randint(0, 5, {3}, o),
                          randperm(4, TensorOptions(kInt64).device(kTestDevice)), tensor({1.0f, 2.0f}, o)})
    EXPECT_EQ(t.device(), kTestDevice);
  EXPECT_EQ(values_of(linspace(0, 1, 5, o)), values_of(linspace(0, 1, 5, kFloat32)));
  Generator g1(7), g2(7);
  EXPECT_EQ(values_of(randn({5}, o, &g1)), values_of(randn({5}, kFloat32, &g2)))
      << "the same stream of numbers on every device";
}

}  // namespace device_contract_test
