#pragma once
// The test device's backend (Note [Test device] in docs/architecture.md): what
// a device backend registers, done with host memory so that it runs anywhere.
// Linked into the test suites of core and vision (the ember_test_device
// object library, tests/common/CMakeLists.txt), it registers itself before main().
#include <cstddef>

#include <ember/ember.h>

namespace ember::testing {

struct TestDeviceStats {
  size_t live_bytes = 0;       // allocated and not yet freed, on the test device
  size_t allocations = 0;      // allocate() calls so far
  size_t pinned_allocations = 0;
  size_t device_copies = 0;    // calls of the test device's copy slot
  size_t non_blocking_copies = 0;  // of which asked with non_blocking
  size_t recorded_streams = 0;  // record_stream calls on test-device memory
  // Slots filled from the CPU's kernels when the device registered (before
  // main), and those still empty then and filled when the tests started (Note
  // [Test device slots of other libraries] in test_device_backend.cpp).
  int slots_filled_at_registration = 0;
  int slots_filled_late = 0;
};
TestDeviceStats test_device_stats();

}  // namespace ember::testing
