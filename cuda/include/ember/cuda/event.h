#pragma once
// CUDA events as torch.cuda.Event: record on a stream, make another stream
// wait for it, query, synchronize, and time the work between two events.
// The cudaEvent_t is created on the first record(), on the device of the
// stream it records on; an event records on one device only.
#include <cstdint>

#include "ember/cuda/stream.h"

namespace ember::cuda {

class CUDAEvent {
 public:
  // enable_timing: elapsed_time() may be asked (timing events cost more).
  // blocking: synchronize() yields the CPU instead of spinning.
  explicit CUDAEvent(bool enable_timing = false, bool blocking = false);
  ~CUDAEvent();
  CUDAEvent(CUDAEvent&& other) noexcept;
  CUDAEvent& operator=(CUDAEvent&& other) noexcept;
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;

  // On the current stream of the current device.
  void record();
  void record(const CUDAStream& stream);
  // Work queued on `stream` after this call waits until the recorded work is
  // done (cudaStreamWaitEvent); nothing to wait for before a record().
  void block(const CUDAStream& stream) const;
  // True when the recorded work has finished (or nothing was recorded).
  bool query() const;
  void synchronize() const;
  // Milliseconds between this event and `end`, both recorded and finished,
  // both made with enable_timing.
  float elapsed_time(const CUDAEvent& end) const;

  bool is_created() const { return event_ != nullptr; }
  bool was_recorded() const { return was_recorded_; }
  int16_t device_index() const { return device_; }

 private:
  void* event_ = nullptr;  // cudaEvent_t
  int16_t device_ = -1;
  bool enable_timing_ = false, blocking_ = false, was_recorded_ = false;
};

}  // namespace ember::cuda
