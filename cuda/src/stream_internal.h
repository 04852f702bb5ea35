#pragma once
// The stream state behind ember/cuda/stream.h, for the backend's own files:
// the current stream as a cudaStream_t, and the guard implementation that
// registers CUDA's device and stream handling with core.
#include <cuda_runtime_api.h>

#include "ember/core/device_guard.h"

namespace ember::cuda::detail {

// The calling thread's current stream on device `index` (>= 0).
cudaStream_t current_cuda_stream(int16_t index);
inline cudaStream_t to_cuda_stream(Stream s) { return reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(s.id)); }
// Highest index a device can have in Ember's per-device tables.
inline constexpr int kMaxDevices = 64;

class CUDAGuardImpl final : public DeviceGuardImpl {
 public:
  DeviceType type() const override { return DeviceType::CUDA; }
  int device_count() const override;
  int16_t current_device() const override;
  void set_device(int16_t index) override;
  Stream current_stream(int16_t index) const override;
  void set_current_stream(Stream stream) override;
  void synchronize(Stream stream) const override;
  // core's Event (event.cpp): cudaEvent_t without timing.
  void record_event(void** event, Stream stream) const override;
  void block_event(void* event, Stream stream) const override;
  bool query_event(void* event) const override;
  void synchronize_event(void* event) const override;
  void destroy_event(void* event) const noexcept override;
};
CUDAGuardImpl& guard_impl();

}  // namespace ember::cuda::detail
