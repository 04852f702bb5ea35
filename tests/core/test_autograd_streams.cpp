// Streams in backward (Note [Streams in backward] in core/src/autograd/engine.cpp)
// and the device-generic stream API (Event, stream_wait_stream, pin_memory,
// is_pinned, record_stream, non_blocking copies), checked without a GPU: the
// test device runs synchronously, so for the stream tests a guard with many
// streams that logs every event replaces its own for the test's duration.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "test_device_backend.h"

using namespace ember;
using ember::testing::test_device_stats;

namespace autograd_streams_test {

// The test device with streams: set_current_stream takes any id, events log
// "record <stream>" and "<waiter> waits for <producer>".
class LoggingGuardImpl final : public DeviceGuardImpl {
 public:
  DeviceType type() const override { return DeviceType::Test; }
  int device_count() const override { return 1; }
  int16_t current_device() const override { return 0; }
  void set_device(int16_t index) override { EMBER_CHECK(index == 0, "test device: no device ", index); }
  Stream current_stream(int16_t) const override { return Stream{kTestDevice, current_}; }
  void set_current_stream(Stream stream) override { current_ = stream.id; }
  void synchronize(Stream) const override {}
  void record_event(void** event, Stream stream) const override {
    if (!*event) *event = new uint64_t(0);
    *static_cast<uint64_t*>(*event) = stream.id;
    log.push_back("record " + std::to_string(stream.id));
  }
  void block_event(void* event, Stream stream) const override {
    log.push_back(std::to_string(stream.id) + " waits for " + std::to_string(*static_cast<uint64_t*>(event)));
  }
  void destroy_event(void* event) const noexcept override { delete static_cast<uint64_t*>(event); }

  mutable std::vector<std::string> log;

 private:
  uint64_t current_ = 0;
};

// Registers a LoggingGuardImpl for the test device while alive.
class WithLoggingStreams {
 public:
  WithLoggingStreams() : previous_(find_device_guard_impl(DeviceType::Test)) {
    register_device_guard_impl(DeviceType::Test, &impl);
  }
  ~WithLoggingStreams() { register_device_guard_impl(DeviceType::Test, previous_); }
  WithLoggingStreams(const WithLoggingStreams&) = delete;
  WithLoggingStreams& operator=(const WithLoggingStreams&) = delete;
  bool logged(const std::string& line) const { return std::find(impl.log.begin(), impl.log.end(), line) != impl.log.end(); }

  LoggingGuardImpl impl;

 private:
  DeviceGuardImpl* previous_;
};

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.cpu().to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void expect_close(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = values_of(a), y = values_of(b);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-12) << "element " << i;
}

TEST(AutogradStreams, NodesRunOnTheirForwardStreamAndTheCallerWaits) {
  manual_seed(3);
  const Tensor x_cpu = randn({4, 5}, TensorOptions(kFloat64));
  WithLoggingStreams streams;
  Tensor x = x_cpu.to(kTestDevice).requires_grad_();  // on stream 0
  const Stream side{kTestDevice, 7};
  std::vector<uint64_t> hook_streams;
  Tensor y;
  {
    StreamGuard on(side);
    Tensor h = (x * 2).exp();
    h.register_hook([&](const Tensor&) { hook_streams.push_back(current_stream(kTestDevice).id); });
    y = h.sum();
  }
  streams.impl.log.clear();
  y.backward();  // from stream 0
  EXPECT_EQ(hook_streams, std::vector<uint64_t>{7}) << "the hook runs on its node's forward stream";
  EXPECT_EQ(current_stream(kTestDevice).id, 0u) << "backward restores the caller's stream";
  EXPECT_TRUE(streams.logged("7 waits for 0")) << "the seed (ones, made on stream 0) is waited for on stream 7";
  ASSERT_FALSE(streams.impl.log.empty());
  EXPECT_EQ(streams.impl.log.back(), "0 waits for 7") << "the caller's stream waits for the pass";
  // The same gradient as on the CPU.
  Tensor xc = x_cpu.clone().requires_grad_();
  (xc * 2).exp().sum().backward();
  expect_close(x.grad(), xc.grad());
}

TEST(AutogradStreams, BranchesOnTwoStreamsSyncIntoTheAccumulator) {
  manual_seed(4);
  const Tensor x_cpu = randn({3, 6}, TensorOptions(kFloat64));
  WithLoggingStreams streams;
  Tensor x = x_cpu.to(kTestDevice).requires_grad_();
  const size_t recorded_before = test_device_stats().recorded_streams;
  Tensor a, b;
  {
    StreamGuard on(Stream{kTestDevice, 3});
    a = x.exp();  // x's accumulator is made here: it runs on stream 3
  }
  {
    StreamGuard on(Stream{kTestDevice, 4});
    b = x.sin();
  }
  Tensor loss = (a * b).sum();  // on stream 0
  streams.impl.log.clear();
  loss.backward();
  EXPECT_TRUE(streams.logged("3 waits for 0")) << "exp's gradient comes from the product, on stream 0";
  EXPECT_TRUE(streams.logged("4 waits for 0"));
  EXPECT_TRUE(streams.logged("3 waits for 4")) << "sin's gradient is summed into x's buffer on stream 3";
  EXPECT_TRUE(streams.logged("0 waits for 3"));
  EXPECT_TRUE(streams.logged("0 waits for 4"));
  EXPECT_GE(test_device_stats().recorded_streams, recorded_before + 3)
      << "gradients read on another stream are marked for the allocator (record_stream)";
  Tensor xc = x_cpu.clone().requires_grad_();
  (xc.exp() * xc.sin()).sum().backward();
  expect_close(x.grad(), xc.grad());
}

TEST(AutogradStreams, OneStreamNeedsNoEventsAndCpuPassesNone) {
  WithLoggingStreams streams;
  Tensor x = randn({8}, TensorOptions(kFloat64)).to(kTestDevice).requires_grad_();
  streams.impl.log.clear();
  (x * x).sum().backward();
  EXPECT_TRUE(streams.impl.log.empty()) << "everything on stream 0: nothing to wait for";
  Tensor c = randn({8}, TensorOptions(kFloat64)).requires_grad_();
  {
    StreamGuard on(Stream{kTestDevice, 5});  // a test-device stream is current: CPU work ignores it
    (c.exp() * c).sum().backward();
  }
  EXPECT_TRUE(streams.impl.log.empty()) << "a CPU pass touches no device stream";
  EXPECT_TRUE(c.grad().defined());
}

TEST(AutogradStreams, GivenGradientAndAutogradGradSyncLikewise) {
  WithLoggingStreams streams;
  Tensor x = randn({2, 3}, TensorOptions(kFloat64)).to(kTestDevice).requires_grad_();
  Tensor y;
  {
    StreamGuard on(Stream{kTestDevice, 9});
    y = x.tanh();
  }
  Tensor g = ones({2, 3}, TensorOptions(kFloat64)).to(kTestDevice);
  streams.impl.log.clear();
  const autograd::variable_list grads = autograd::grad({y}, {x}, {g});
  EXPECT_TRUE(streams.logged("9 waits for 0"));
  ASSERT_FALSE(streams.impl.log.empty());
  EXPECT_EQ(streams.impl.log.back(), "0 waits for 9");
  expect_close(grads[0], 1 - x.detach().tanh().square());
}

TEST(DeviceEvents, CpuEventsAreAlwaysCompleteAndTypesMustMatch) {
  Event e(DeviceType::CPU);
  EXPECT_FALSE(e.was_recorded());
  EXPECT_TRUE(e.query());
  e.record(current_stream(kCPU));
  EXPECT_TRUE(e.was_recorded());
  EXPECT_TRUE(e.query());
  e.block(current_stream(kCPU));
  e.synchronize();
  stream_wait_stream(current_stream(kCPU), current_stream(kCPU));
  try {
    stream_wait_stream(current_stream(kCPU), current_stream(kTestDevice));
    FAIL() << "a CPU stream waited for a test-device stream";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("stream_wait_stream"), std::string::npos) << err.what();
  }
  EXPECT_THROW(e.record(current_stream(kTestDevice)), Error);
}

TEST(DeviceEvents, EventsGoThroughTheDevicesGuard) {
  WithLoggingStreams streams;
  {
    Event e(DeviceType::Test);
    e.record(Stream{kTestDevice, 2});
    e.block(Stream{kTestDevice, 5});
    Event moved = std::move(e);
    EXPECT_TRUE(moved.was_recorded());
    EXPECT_FALSE(e.was_recorded());  // NOLINT: moved-from state is specified
  }
  EXPECT_EQ(streams.impl.log, (std::vector<std::string>{"record 2", "5 waits for 2"}));
  streams.impl.log.clear();
  stream_wait_stream(Stream{kTestDevice, 1}, Stream{kTestDevice, 1});
  EXPECT_TRUE(streams.impl.log.empty()) << "a stream never waits for itself";
}

TEST(PinnedMemory, PinMemoryUsesTheRegisteredPinnedAllocator) {
  const Tensor x = arange(12, TensorOptions(kFloat32)).reshape({3, 4});
  EXPECT_FALSE(x.is_pinned());
  const size_t before = test_device_stats().pinned_allocations;
  const Tensor p = x.pin_memory(DeviceType::Test);
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.device().is_cpu());
  EXPECT_EQ(test_device_stats().pinned_allocations, before + 1);
  EXPECT_EQ(values_of(p), values_of(x));
  EXPECT_TRUE(p.pin_memory(DeviceType::Test).is_same(p)) << "already pinned: the tensor itself";
  EXPECT_TRUE(p.narrow(0, 1, 2).is_pinned()) << "a view shares the pinned storage";
  // A transposed tensor keeps its layout.
  const Tensor pt = x.t().pin_memory(DeviceType::Test);
  EXPECT_EQ(pt.strides().vec(), x.t().strides().vec());
  EXPECT_EQ(values_of(pt), values_of(x.t()));
}

TEST(PinnedMemory, ErrorsNameTheOpAndTheValues) {
  const Tensor d = ones({2}).to(kTestDevice);
  try {
    d.pin_memory(DeviceType::Test);
    FAIL() << "pinned a device tensor";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pin_memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test:0"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(d.is_pinned());
  if (device_count(DeviceType::CUDA) == 0) {
    try {
      ones({2}).pin_memory();  // CUDA by default: no backend here
      FAIL() << "pinned memory without a CUDA backend";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("no pinned host allocator is registered for cuda"), std::string::npos)
          << e.what();
    }
  }
}

TEST(PinnedMemory, NonBlockingReachesTheCopySlot) {
  const Tensor x = randn({16}, TensorOptions(kFloat64));
  const Tensor pinned = x.pin_memory(DeviceType::Test);
  struct {
    size_t copies, non_blocking;
  } before{test_device_stats().device_copies, test_device_stats().non_blocking_copies};
  const Tensor d = pinned.to(kTestDevice, /*non_blocking=*/true, /*copy=*/false);
  EXPECT_EQ(test_device_stats().non_blocking_copies, before.non_blocking + 1);
  const Tensor blocking = x.to(kTestDevice);
  EXPECT_EQ(test_device_stats().non_blocking_copies, before.non_blocking + 1) << "to() without it stays blocking";
  Tensor back = empty({16}, TensorOptions(kFloat64)).pin_memory(DeviceType::Test);
  back.copy_(d, /*non_blocking=*/true);
  EXPECT_EQ(test_device_stats().non_blocking_copies, before.non_blocking + 2);
  EXPECT_EQ(values_of(back), values_of(x));
  // With a dtype conversion the bytes cross through a staging tensor, still asked non_blocking.
  const Tensor f = pinned.to(kTestDevice, kFloat32, /*non_blocking=*/true, /*copy=*/false);
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(values_of(f), values_of(x.to(kFloat32)));
  EXPECT_GT(test_device_stats().device_copies, before.copies);
  // On one device non_blocking changes nothing.
  const Tensor same = x.to(TensorOptions(kFloat32), /*non_blocking=*/true, /*copy=*/false);
  EXPECT_EQ(values_of(same), values_of(x.to(kFloat32)));
}

TEST(RecordStream, ReachesTheTensorsAllocator) {
  const Tensor d = ones({4}).to(kTestDevice);
  const size_t before = test_device_stats().recorded_streams;
  d.record_stream(current_stream(kTestDevice));
  EXPECT_EQ(test_device_stats().recorded_streams, before + 1);
  ones({2}).record_stream(current_stream(kCPU));  // host memory: nothing to do
  try {
    d.record_stream(current_stream(kCPU));
    FAIL() << "recorded a CPU stream on a test-device tensor";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("record_stream"), std::string::npos) << e.what();
  }
}

}  // namespace autograd_streams_test
