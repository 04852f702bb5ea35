#include "ember/cuda/runtime.h"

#include <mutex>

#include "check.h"

namespace ember::cuda {
namespace detail {

void throw_cuda_error(cudaError_t err, const char* op, const char* call) {
  // Clears the sticky "last error" of a non-sticky failure so that the next
  // call does not report it again.
  (void)cudaGetLastError();
  std::string call_name(call);
  if (auto paren = call_name.find('('); paren != std::string::npos) call_name.resize(paren);
  throw CUDAError(::ember::detail::concat(op, ": ", call_name, " failed: ", cudaGetErrorName(err), " (",
                                          cudaGetErrorString(err), ")"),
                  static_cast<int>(err));
}

int cached_device_count() {
  static const int count = [] {
    int n = 0;
    // No driver, no device, a driver older than the runtime: no GPU.
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

int16_t resolve_index(int16_t index, const char* op) {
  const int count = cached_device_count();
  EMBER_CHECK(count > 0, op, ": no CUDA device is available");
  if (index < 0) return current_device();
  EMBER_CHECK(index < count, op, ": CUDA device ", index, " does not exist (", count, " device",
              count == 1 ? "" : "s", ")");
  return index;
}

ScopedDevice::ScopedDevice(int16_t index, const char* op) {
  EMBER_CUDA_CHECK(cudaGetDevice(&previous_), op);
  if (previous_ != index) EMBER_CUDA_CHECK(cudaSetDevice(index), op);
}

ScopedDevice::~ScopedDevice() {
  int now = -1;
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
}

}  // namespace detail

bool is_available() { return detail::cached_device_count() > 0; }
int device_count() { return detail::cached_device_count(); }

int16_t current_device() {
  if (!is_available()) return 0;
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d), "cuda current_device");
  return static_cast<int16_t>(d);
}

void set_device(int16_t index) {
  const int count = device_count();
  EMBER_CHECK(index >= 0 && index < count, "cuda set_device: CUDA device ", index, " does not exist (",
              count, " device", count == 1 ? "" : "s", ")");
  EMBER_CUDA_CHECK(cudaSetDevice(index), "cuda set_device");
}

DeviceProperties get_device_properties(int16_t index) {
  index = detail::resolve_index(index, "cuda get_device_properties");
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, index), "cuda get_device_properties");
  DeviceProperties out;
  out.name = p.name;
  out.major = p.major;
  out.minor = p.minor;
  out.total_memory = static_cast<int64_t>(p.totalGlobalMem);
  out.multi_processor_count = p.multiProcessorCount;
  out.max_threads_per_block = p.maxThreadsPerBlock;
  out.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
  out.warp_size = p.warpSize;
  out.l2_cache_size = p.l2CacheSize;
  out.shared_memory_per_block = static_cast<int64_t>(p.sharedMemPerBlock);
  out.memory_bus_width = p.memoryBusWidth;
  return out;
}

void synchronize(int16_t index) {
  index = detail::resolve_index(index, "cuda synchronize");
  detail::ScopedDevice on(index, "cuda synchronize");
  EMBER_CUDA_CHECK(cudaDeviceSynchronize(), "cuda synchronize");
}

int runtime_version() {
  int v = 0;
  return cudaRuntimeGetVersion(&v) == cudaSuccess ? v : 0;
}

int driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return v;
}

}  // namespace ember::cuda
