#include "ember/cuda/stream.h"

#include <array>
#include <atomic>
#include <mutex>

#include "check.h"
#include "ember/cuda/runtime.h"
#include "stream_internal.h"

namespace ember::cuda {
namespace detail {
namespace {

// Pool sizes as c10::cuda (kStreamsPerPool).
constexpr int kStreamsPerPool = 32;

struct DevicePool {
  std::once_flag created;
  std::array<cudaStream_t, kStreamsPerPool> normal{}, high{};
  std::atomic<uint32_t> next_normal{0}, next_high{0};
};

DevicePool& pool(int16_t index) {
  static std::array<DevicePool, kMaxDevices> pools;
  return pools[index];
}

void create_pool(int16_t index, DevicePool& p) {
  ScopedDevice on(index, "cuda stream_from_pool");
  int least = 0, greatest = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cuda stream_from_pool");
  for (int i = 0; i < kStreamsPerPool; ++i) {
    // Non-blocking: pool streams do not synchronize with the legacy default stream.
    EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.normal[i], cudaStreamNonBlocking, least), "cuda stream_from_pool");
    EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.high[i], cudaStreamNonBlocking, greatest), "cuda stream_from_pool");
  }
}

// Per thread and device: the current stream's id (0: the default stream).
std::array<uint64_t, kMaxDevices>& thread_current_streams() {
  thread_local std::array<uint64_t, kMaxDevices> ids{};
  return ids;
}

Stream make_stream(int16_t index, cudaStream_t s) {
  return Stream{Device(DeviceType::CUDA, index), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(s))};
}

}  // namespace

cudaStream_t current_cuda_stream(int16_t index) {
  return reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(thread_current_streams()[index]));
}

int CUDAGuardImpl::device_count() const { return cached_device_count(); }
int16_t CUDAGuardImpl::current_device() const { return cuda::current_device(); }
void CUDAGuardImpl::set_device(int16_t index) { cuda::set_device(index); }

Stream CUDAGuardImpl::current_stream(int16_t index) const {
  index = resolve_index(index, "cuda current_stream");
  return Stream{Device(DeviceType::CUDA, index), thread_current_streams()[index]};
}

void CUDAGuardImpl::set_current_stream(Stream stream) {
  EMBER_CHECK(stream.device.type == DeviceType::CUDA, "cuda set_current_stream: a stream of ", stream.device,
              " is not a CUDA stream");
  const int16_t index = resolve_index(stream.device.index, "cuda set_current_stream");
  thread_current_streams()[index] = stream.id;
}

void CUDAGuardImpl::synchronize(Stream stream) const {
  const int16_t index = resolve_index(stream.device.index, "cuda synchronize");
  ScopedDevice on(index, "cuda stream synchronize");
  EMBER_CUDA_CHECK(cudaStreamSynchronize(to_cuda_stream(stream)), "cuda stream synchronize");
}

CUDAGuardImpl& guard_impl() {
  static CUDAGuardImpl impl;
  return impl;
}

}  // namespace detail

CUDAStream::CUDAStream(Stream stream) : stream_(stream) {
  EMBER_CHECK(stream.device.type == DeviceType::CUDA, "CUDAStream: a stream of ", stream.device,
              " is not a CUDA stream");
  stream_.device.index = detail::resolve_index(stream.device.index, "CUDAStream");
}

bool CUDAStream::query() const {
  detail::ScopedDevice on(device_index(), "cuda stream query");
  const cudaError_t err = cudaStreamQuery(detail::to_cuda_stream(stream_));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err, "cuda stream query");
  return true;
}

void CUDAStream::synchronize() const { detail::guard_impl().synchronize(stream_); }

CUDAStream default_stream(int16_t device) {
  device = detail::resolve_index(device, "cuda default_stream");
  return CUDAStream(Stream{Device(DeviceType::CUDA, device), 0});
}

CUDAStream current_stream(int16_t device) { return CUDAStream(detail::guard_impl().current_stream(device)); }

void set_current_stream(const CUDAStream& stream) { detail::guard_impl().set_current_stream(stream.unwrap()); }

CUDAStream stream_from_pool(bool high_priority, int16_t device) {
  device = detail::resolve_index(device, "cuda stream_from_pool");
  detail::DevicePool& p = detail::pool(device);
  std::call_once(p.created, [&] { detail::create_pool(device, p); });
  const uint32_t i = (high_priority ? p.next_high : p.next_normal).fetch_add(1) % detail::kStreamsPerPool;
  return CUDAStream(detail::make_stream(device, high_priority ? p.high[i] : p.normal[i]));
}

}  // namespace ember::cuda
