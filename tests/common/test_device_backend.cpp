// The test device's backend: an allocator handing out its own host memory, a
// synchronous device guard, the copy-between-devices slot (the only way its
// bytes reach the host), and every other kernel slot filled with the CPU's
// kernels. Core sees a foreign device: data_ptr() outside a kernel slot
// raises (Note [Host access]), so an op that reads device memory on the host
// or allocates its output on the CPU fails a test here before a GPU finds it.
#include "test_device_backend.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include <gtest/gtest.h>

#include "kernels/slots/copy_kernels.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::testing {
namespace {

std::mutex g_stats_mutex;
TestDeviceStats g_stats;

class TestDeviceAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    void* p = std::aligned_alloc(64, (nbytes + 63) / 64 * 64 + 64);
    if (!p) throw std::bad_alloc();
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    g_stats.live_bytes += nbytes;
    ++g_stats.allocations;
    return p;
  }
  void deallocate(void* ptr, size_t nbytes) override {
    std::free(ptr);
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    g_stats.live_bytes -= nbytes;
  }
  void record_stream(void*, Stream) override {
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    ++g_stats.recorded_streams;
  }
  Device device() const override { return kTestDevice; }
};

// Pinned host memory for the test device: plain host memory, counted.
class TestPinnedAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    void* p = std::aligned_alloc(64, (nbytes + 63) / 64 * 64 + 64);
    if (!p) throw std::bad_alloc();
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    ++g_stats.pinned_allocations;
    return p;
  }
  void deallocate(void* ptr, size_t) override { std::free(ptr); }
  Device device() const override { return kCPU; }
};

void test_device_copy(Tensor& dst, const Tensor& src, bool non_blocking) {
  {
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    ++g_stats.device_copies;
    if (non_blocking) ++g_stats.non_blocking_copies;
  }
  std::memcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes());
}

bool register_test_device() {
  static TestDeviceAllocator allocator;
  static TestPinnedAllocator pinned;
  static SynchronousDeviceGuardImpl guard(DeviceType::Test);
  register_allocator(Device(DeviceType::Test), &allocator);
  register_allocator(Device(DeviceType::Test), &pinned, AllocatorKind::PinnedHost);
  register_device_guard_impl(DeviceType::Test, &guard);
  device_copy_slot.set(DeviceType::Test, &test_device_copy);
  const int filled = fill_slots_from(DeviceType::Test, DeviceType::CPU);
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  g_stats.slots_filled_at_registration = filled;
  return true;
}

// Note [Test device slots of other libraries]
// fill_slots_from copies the CPU kernels registered so far. The shared
// libraries a suite links (libember_core, libember_vision: their slots and CPU
// kernels) are initialized by the loader before this executable's own
// initializers, so this registration sees them all. In a static build the
// libraries' initializers run in the executable's own, unspecified order, so
// the slots are filled again when the tests start (a gtest environment, after
// every static initializer): fill_slots_from only fills slots still empty, and
// missing_kernels(DeviceType::Test) in each suite checks the result.
[[maybe_unused]] const bool g_registered = register_test_device();

class FillLateSlots final : public ::testing::Environment {
 public:
  void SetUp() override {
    const int filled = fill_slots_from(DeviceType::Test, DeviceType::CPU);
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    g_stats.slots_filled_late += filled;
  }
};
[[maybe_unused]] ::testing::Environment* const g_fill_late_slots =
    ::testing::AddGlobalTestEnvironment(new FillLateSlots);

}  // namespace

TestDeviceStats test_device_stats() {
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  return g_stats;
}

}  // namespace ember::testing
