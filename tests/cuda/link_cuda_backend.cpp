// Linked into ember_core_tests in CUDA builds: a reference to Ember::cuda, so
// that the linker keeps the library (and its registrations) even where it
// drops libraries nothing refers to (--as-needed).
#include <ember/cuda/runtime.h>

namespace {
[[maybe_unused]] const bool cuda_backend_linked = (ember::cuda::device_count(), true);
}  // namespace
