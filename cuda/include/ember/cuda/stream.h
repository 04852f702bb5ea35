#pragma once
// CUDA streams as c10::cuda's CUDAStream: each device has its default stream
// (id 0, the legacy default stream), a pool of 32 normal- and 32
// high-priority non-blocking streams handed out round robin
// (stream_from_pool), and per thread and device a current stream, which
// every Ember op and copy on that device queues its work on. A CUDAStream is
// an ember::Stream of type CUDA; core's StreamGuard and current_stream()
// work with it as with any device's stream.
#include <cstdint>

#include "ember/core/device_guard.h"

namespace ember::cuda {

class CUDAStream {
 public:
  // An ember::Stream of a CUDA device (an ember::Error otherwise).
  explicit CUDAStream(Stream stream);

  Stream unwrap() const { return stream_; }
  operator Stream() const { return stream_; }
  Device device() const { return stream_.device; }
  int16_t device_index() const { return stream_.device.index; }
  uint64_t id() const { return stream_.id; }
  // The cudaStream_t, as void* so that this header needs no CUDA header.
  void* handle() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(stream_.id)); }
  // True when all work queued so far has finished (cudaStreamQuery).
  bool query() const;
  void synchronize() const;
  friend bool operator==(const CUDAStream& a, const CUDAStream& b) { return a.stream_ == b.stream_; }
  friend bool operator!=(const CUDAStream& a, const CUDAStream& b) { return !(a == b); }

 private:
  Stream stream_;
};

// device -1: the current device.
CUDAStream default_stream(int16_t device = -1);
CUDAStream current_stream(int16_t device = -1);
// Makes `stream` the calling thread's current stream on its device (not the
// current device itself; CUDAStreamGuard does both).
void set_current_stream(const CUDAStream& stream);
// A stream from the device's pool, created on first use.
CUDAStream stream_from_pool(bool high_priority = false, int16_t device = -1);

// Makes a device current for the guard's lifetime (c10::cuda::CUDAGuard).
class CUDAGuard {
 public:
  explicit CUDAGuard(int16_t device) : guard_(Device(DeviceType::CUDA, device)) {}

 private:
  DeviceGuard guard_;
};

// Makes `stream` current on its device, and its device current, for the
// guard's lifetime; both are restored after (c10::cuda::CUDAStreamGuard).
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(const CUDAStream& stream) : guard_(stream.unwrap()) {}

 private:
  StreamGuard guard_;
};

}  // namespace ember::cuda
