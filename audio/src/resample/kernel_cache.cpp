// The resample() kernel cache (kernel_cache.h).
#include "kernel_cache.h"

#include <list>
#include <mutex>
#include <utility>

#include <ember/audio/functional/resample.h>

namespace ember::audio::functional::detail {
namespace {

struct KernelCache {
  std::mutex mutex;
  // Most recently used first.
  std::list<std::pair<ResampleKernelKey, std::shared_ptr<const CachedResampleKernel>>> entries;
};

// Never destroyed: cached tensors must not outlive the allocator at exit.
KernelCache& cache() {
  static auto* instance = new KernelCache;
  return *instance;
}

std::shared_ptr<const CachedResampleKernel> build(const ResampleKernelKey& key) {
  auto built = std::make_shared<CachedResampleKernel>();
  SincResampleKernel k = sinc_resample_kernel(key.orig, key.next, 1, key.lowpass_filter_width, key.rolloff,
                                              key.resampling_method, key.beta, key.dtype, key.device);
  built->kernel = k.kernel.contiguous();
  built->width = k.width;
  if (key.device.is_cpu()) built->plan = make_polyphase_plan(built->kernel, key.orig, k.width);
  return built;
}

}  // namespace

std::shared_ptr<const CachedResampleKernel> cached_resample_kernel(const ResampleKernelKey& key) {
  KernelCache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.entries.begin(); it != c.entries.end(); ++it) {
      if (it->first == key) {
        c.entries.splice(c.entries.begin(), c.entries, it);
        return c.entries.front().second;
      }
    }
  }
  std::shared_ptr<const CachedResampleKernel> built = build(key);
  std::lock_guard<std::mutex> lock(c.mutex);
  for (const auto& entry : c.entries)
    if (entry.first == key) return entry.second;  // another thread built it meanwhile
  c.entries.emplace_front(key, built);
  if (c.entries.size() > kResampleKernelCacheSize) c.entries.pop_back();
  return built;
}

size_t resample_kernel_cache_entries() {
  KernelCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.entries.size();
}

}  // namespace ember::audio::functional::detail
