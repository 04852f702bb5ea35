// lfilter, filtfilt and a biquad design on every device (device_test.h): the
// test device runs the CPU's kernel through audio's lfilter_slot, so results
// must equal the CPU's bit for bit and stay on the device, forward and
// backward; any host read of device memory raises there (Note [Host access]).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "device_test.h"
#include "filters/lfilter_kernels.h"
#include "kernels/slots/kernel_slot.h"
#include "npy.h"

namespace filters_on_device_test {

using namespace ember;
using namespace ember::testing;
namespace AF = ember::audio::functional;

Tensor fixture(const std::string& name) { return load_npy(fixture_path("audio/filters/" + name + ".npy")); }

class FiltersOnDevice : public OnEachDevice {};

void expect_same(const Tensor& on_device, const Tensor& on_cpu, Device device) {
  EXPECT_EQ(on_device.device(), device);
  EXPECT_TRUE(on_device.cpu().equal(on_cpu));
}

TEST_P(FiltersOnDevice, ForwardMatchesTheCpu) {
  for (const DType dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype);
    const Tensor x = fixture("wave").to(dtype);
    const Tensor a = fixture("a_o3").to(dtype), b = fixture("b_o3").to(dtype);
    const Tensor ab = fixture("a_batch").to(dtype), bb = fixture("b_batch").to(dtype);
    const Tensor xd = on_device(x), ad = on_device(a), bd = on_device(b);
    expect_same(AF::lfilter(xd, ad, bd), AF::lfilter(x, a, b), device());
    expect_same(AF::lfilter(xd, on_device(ab), on_device(bb), false), AF::lfilter(x, ab, bb, false), device());
    expect_same(AF::lfilter(xd.select(1, 0), on_device(ab), on_device(bb), true, false),
                AF::lfilter(x.select(1, 0), ab, bb, true, false), device());
    expect_same(AF::filtfilt(xd, ad, bd), AF::filtfilt(x, a, b), device());
    expect_same(AF::bandpass_biquad(xd, 16000, 3000.0, 2.0), AF::bandpass_biquad(x, 16000, 3000.0, 2.0), device());
    expect_same(AF::riaa_biquad(xd, 44100), AF::riaa_biquad(x, 44100), device());
  }
}

TEST_P(FiltersOnDevice, GradientsMatchTheCpu) {
  const Tensor x = fixture("wave").narrow(-1, 0, 32);
  const Tensor a = fixture("a_grad_batch"), b = fixture("b_grad_batch");
  auto grads = [](const Tensor& x0, const Tensor& a0, const Tensor& b0) {
    const Tensor xs = x0.clone().requires_grad_(), as = a0.clone().requires_grad_(), bs = b0.clone().requires_grad_();
    AF::lfilter(xs, as, bs).pow(2).sum().backward();
    return std::vector<Tensor>{xs.grad(), as.grad(), bs.grad()};
  };
  const std::vector<Tensor> on_cpu = grads(x, a, b);
  const std::vector<Tensor> on_dev = grads(on_device(x), on_device(a), on_device(b));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(on_dev[i].device(), device()) << i;
    EXPECT_LE((on_dev[i].cpu() - on_cpu[i]).abs().max().item<double>(), 1e-12) << i;
  }
  // A design parameter on the device.
  const Tensor cutoff = on_device(scalar_tensor(1500.0, kFloat64)).requires_grad_();
  AF::lowpass_biquad(on_device(x), 16000, cutoff).sum().backward();
  EXPECT_EQ(cutoff.grad().device(), device());
}

TEST_P(FiltersOnDevice, LfilterSlotIsFilled) {
  EXPECT_TRUE(audio::lfilter_slot.supports(device(), kFloat32));
  EXPECT_TRUE(audio::lfilter_slot.supports(device(), kFloat64));
  for (const std::string& m : missing_kernels(device().type))
    EXPECT_NE(m.rfind("audio.", 0), 0u) << "missing on " << device() << ": " << m;
}

EMBER_INSTANTIATE_ON_EACH_DEVICE(FiltersOnDevice);

// A backend without the kernel gets an error naming the function, the slot and
// the device, not a crash.
TEST(FiltersTestDevice, MissingKernelIsAClearError) {
  auto* kernel = audio::lfilter_slot.kernel(kTestDevice);
  audio::lfilter_slot.set(DeviceType::Test, nullptr);
  const Tensor x = fixture("wave").to(kTestDevice);
  const Tensor a = fixture("a_o3").to(kTestDevice), b = fixture("b_o3").to(kTestDevice);
  try {
    AF::lfilter(x, a, b);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lfilter: no audio.lfilter kernel for float64 on test"), std::string::npos)
        << e.what();
  }
  audio::lfilter_slot.set(DeviceType::Test, kernel, dtype_bit(kFloat32) | dtype_bit(kFloat64));
  EXPECT_NO_THROW(AF::lfilter(x, a, b));
}

}  // namespace filters_on_device_test
