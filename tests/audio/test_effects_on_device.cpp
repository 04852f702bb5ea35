// The effects on every device (device_test.h): each case runs on the CPU and
// on the device under test, float32 and float64; the result must live on the
// input's device and equal the CPU's bit for bit. The test device runs the
// CPU's kernels through audio's kernel slots (effect_kernels.h), so any
// difference, output left on the CPU or host read of device memory is a
// device assumption in an op file. Gradients of the slot-backed effects run
// the slots' transposes (Note [Effects as linear maps]) on the device too.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "device_test.h"
#include "kernels/slots/kernel_slot.h"

namespace effects_on_device_test {

using namespace ember;
using namespace ember::testing;
namespace AF = ember::audio::functional;

struct EffectCase {
  std::string name;
  std::function<Tensor(const Tensor&)> fn;  // waveform [2, 2, 300] -> result
};

const std::vector<EffectCase>& effect_cases() {
  static const std::vector<EffectCase> cases = {
      {"contrast", [](const Tensor& x) { return AF::contrast(x, 60.0); }},
      {"dcshift_limiter", [](const Tensor& x) { return AF::dcshift(x, 0.6, 0.05); }},
      {"gain", [](const Tensor& x) { return AF::gain(x, -3.0); }},
      {"overdrive", [](const Tensor& x) { return AF::overdrive(x, 25.0, 40.0); }},
      {"phaser", [](const Tensor& x) { return AF::phaser(x, 4000, 0.5, 0.8, 3.0, 0.6, 2.0, false); }},
      {"flanger_linear", [](const Tensor& x) { return AF::flanger(x, 4000, 1.0, 3.0, 20.0, 71.0, 7.0); }},
      {"flanger_quadratic",
       [](const Tensor& x) { return AF::flanger(x, 4000, 0.0, 4.0, -40.0, 50.0, 5.0, 60.0, "triangular", "quadratic"); }},
      {"dither_tpdf_shaped", [](const Tensor& x) { return AF::dither(x, "TPDF", true); }},
      {"dither_gpdf",
       [](const Tensor& x) {
         manual_seed(3);
         return AF::dither(x, "GPDF");
       }},
      {"vad",
       [](const Tensor& x) {
         // 600 quiet samples, then the signal four times: vad trims 500 of them.
         const Tensor rows = x.flatten(0, 1);
         const Tensor clip = cat({rows * 0.001, rows * 0.001, rows, rows, rows, rows}, -1);
         const Tensor out = AF::vad(clip, 4000, 3.0, 0.1, 0.2, 0.1, 0.0, 0.05, 0.1, 0.01, 1.35, 40.0);
         EXPECT_EQ(out.size(-1), 1300);
         return out;
       }},
      {"convolve_same", [](const Tensor& x) { return AF::convolve(x, x.narrow(-1, 0, 33).narrow(0, 0, 1), "same"); }},
      {"fftconvolve_valid", [](const Tensor& x) { return AF::fftconvolve(x, x.narrow(-1, 5, 20), "valid"); }},
      {"add_noise",
       [](const Tensor& x) {
         const Tensor snr = (arange(0, 4, TensorOptions(x.dtype()).device(x.device())) * 2.5).reshape({2, 2});
         const Tensor lengths = tensor<int64_t>({{300, 120}, {7, 299}}).to(x.device());
         return AF::add_noise(x, x.flip({-1}) * 0.3 + 0.01, snr, lengths);
       }},
  };
  return cases;
}

// Sinusoids with noise, then 100 samples of near-silence before a burst (vad).
Tensor waveform(DType dtype) {
  manual_seed(12);
  const Tensor t = arange(0, 300, kFloat64);
  Tensor x = (t * 0.07).sin().reshape({1, 1, 300}) * 0.5 + randn({2, 2, 300}, kFloat64) * 0.2;
  x.narrow(-1, 0, 100).mul_(0.001);
  return x.to(dtype);
}

void expect_same_values(const Tensor& cpu, const Tensor& on_device, Device device) {
  EXPECT_EQ(on_device.device(), device) << "the result is not on the input's device";
  EXPECT_EQ(on_device.dtype(), cpu.dtype());
  ASSERT_EQ(on_device.sizes(), cpu.sizes());
  EXPECT_TRUE(equal(on_device.cpu(), cpu)) << "the device's result differs from the CPU's";
}

class AudioEffectsOnDevice : public OnEachDevice {};

TEST_P(AudioEffectsOnDevice, EffectsMatchTheCpu) {
  for (const EffectCase& c : effect_cases()) {
    for (DType dtype : {kFloat32, kFloat64}) {
      SCOPED_TRACE(c.name + " " + std::string(dtype_name(dtype)));
      const Tensor x = waveform(dtype);
      expect_same_values(c.fn(x), c.fn(on_device(x)), device());
    }
  }
}

TEST_P(AudioEffectsOnDevice, GradientsMatchTheCpu) {
  const std::vector<std::string> differentiable = {"overdrive", "phaser", "flanger_linear", "flanger_quadratic",
                                                   "convolve_same", "add_noise", "contrast"};
  for (const EffectCase& c : effect_cases()) {
    if (std::find(differentiable.begin(), differentiable.end(), c.name) == differentiable.end()) continue;
    SCOPED_TRACE(c.name);
    auto grad_of = [&](const Tensor& x0) {
      const Tensor x = x0.detach().requires_grad_();
      const Tensor y = c.fn(x);
      y.backward(ones_like(y));
      return x.grad();
    };
    const Tensor x = waveform(kFloat64) * 0.3;
    expect_same_values(grad_of(x), grad_of(on_device(x)), device());
  }
}

// The effects' slots are listed in the registry and have kernels on this device.
TEST_P(AudioEffectsOnDevice, EffectSlotsAreFilled) {
  const std::set<std::string> expected = {"audio.overdrive_dc_blocker", "audio.phaser_delay", "audio.flanger",
                                          "audio.vad", "audio.convolve"};
  std::set<std::string> listed;
  for (const SlotEntry& e : slot_registry()) {
    if (expected.count(e.name) == 0) continue;
    listed.insert(e.name);
    EXPECT_NE(e.table[static_cast<int>(device().type)], nullptr) << e.name << " has no kernel on " << device();
    EXPECT_EQ(e.dtype_masks[static_cast<int>(device().type)], kMaskFloat) << e.name << " on " << device();
  }
  EXPECT_EQ(listed, expected);
}

EMBER_INSTANTIATE_ON_EACH_DEVICE(AudioEffectsOnDevice);

}  // namespace effects_on_device_test
