#pragma once
// The resample() kernel cache: the kernel (and its CPU polyphase plan) of each
// recent (rates, parameters, dtype, device), so that resampling many clips with
// the same settings builds the filter bank once, as a Resample module does.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <ember/ember.h>

#include "polyphase.h"

namespace ember::audio::functional::detail {

struct ResampleKernelKey {
  int64_t orig = 0, next = 0;  // divided by their gcd
  int64_t lowpass_filter_width = 0;
  double rolloff = 0;
  std::string resampling_method;
  std::optional<double> beta;
  DType dtype = kFloat32;
  Device device = kCPU;
  bool operator==(const ResampleKernelKey&) const = default;
};

struct CachedResampleKernel {
  Tensor kernel;  // [next, 1, 2 * width + orig]
  int64_t width = 0;
  std::optional<PolyphasePlan> plan;  // CPU kernels only
};

// Entries kept; the least recently used one is dropped beyond this.
inline constexpr size_t kResampleKernelCacheSize = 16;

// The cached kernel for key, built (outside the lock) on a miss. Thread-safe.
std::shared_ptr<const CachedResampleKernel> cached_resample_kernel(const ResampleKernelKey& key);
// The number of kernels held now (at most kResampleKernelCacheSize).
size_t resample_kernel_cache_entries();

}  // namespace ember::audio::functional::detail
