#include "ember/cuda/event.h"

#include <utility>

#include "check.h"
#include "stream_internal.h"

namespace ember::cuda {

namespace {
cudaEvent_t as_event(void* e) { return static_cast<cudaEvent_t>(e); }
}  // namespace

CUDAEvent::CUDAEvent(bool enable_timing, bool blocking) : enable_timing_(enable_timing), blocking_(blocking) {}

CUDAEvent::~CUDAEvent() {
  // No device switch (which could throw at exit): destroying needs none.
  if (event_) (void)cudaEventDestroy(as_event(event_));
}

CUDAEvent::CUDAEvent(CUDAEvent&& other) noexcept { *this = std::move(other); }

CUDAEvent& CUDAEvent::operator=(CUDAEvent&& other) noexcept {
  if (this != &other) {
    std::swap(event_, other.event_);
    std::swap(device_, other.device_);
    std::swap(enable_timing_, other.enable_timing_);
    std::swap(blocking_, other.blocking_);
    std::swap(was_recorded_, other.was_recorded_);
  }
  return *this;
}

void CUDAEvent::record() { record(current_stream()); }

void CUDAEvent::record(const CUDAStream& stream) {
  detail::ScopedDevice on(stream.device_index(), "cuda event record");
  if (!event_) {
    unsigned flags = enable_timing_ ? cudaEventDefault : cudaEventDisableTiming;
    if (blocking_) flags |= cudaEventBlockingSync;
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags), "cuda event record");
    event_ = e;
    device_ = stream.device_index();
  }
  EMBER_CHECK(device_ == stream.device_index(), "cuda event record: the event belongs to cuda:", device_,
              ", the stream to cuda:", stream.device_index());
  EMBER_CUDA_CHECK(cudaEventRecord(as_event(event_), detail::to_cuda_stream(stream)), "cuda event record");
  was_recorded_ = true;
}

void CUDAEvent::block(const CUDAStream& stream) const {
  if (!event_) return;
  detail::ScopedDevice on(stream.device_index(), "cuda event block");
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(detail::to_cuda_stream(stream), as_event(event_), 0), "cuda event block");
}

bool CUDAEvent::query() const {
  if (!event_) return true;
  const cudaError_t err = cudaEventQuery(as_event(event_));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err, "cuda event query");
  return true;
}

void CUDAEvent::synchronize() const {
  if (event_) EMBER_CUDA_CHECK(cudaEventSynchronize(as_event(event_)), "cuda event synchronize");
}

float CUDAEvent::elapsed_time(const CUDAEvent& end) const {
  EMBER_CHECK(enable_timing_ && end.enable_timing_,
              "cuda event elapsed_time: both events must be made with enable_timing");
  EMBER_CHECK(was_recorded_ && end.was_recorded_, "cuda event elapsed_time: both events must be recorded first");
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, as_event(event_), as_event(end.event_)), "cuda event elapsed_time");
  return ms;
}

// ---- core's device-generic Event (ember::Event, used by the autograd engine) ----
// The event is created on the first record, on the stream's device, without
// timing (cheaper to record, as c10's CUDA events by default).
namespace detail {

void CUDAGuardImpl::record_event(void** event, Stream stream) const {
  const int16_t index = resolve_index(stream.device.index, "cuda event record");
  ScopedDevice on(index, "cuda event record");
  if (!*event) {
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cuda event record");
    *event = e;
  }
  EMBER_CUDA_CHECK(cudaEventRecord(as_event(*event), to_cuda_stream(stream)), "cuda event record");
}

void CUDAGuardImpl::block_event(void* event, Stream stream) const {
  if (!event) return;
  const int16_t index = resolve_index(stream.device.index, "cuda event block");
  ScopedDevice on(index, "cuda event block");
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(to_cuda_stream(stream), as_event(event), 0), "cuda event block");
}

bool CUDAGuardImpl::query_event(void* event) const {
  if (!event) return true;
  const cudaError_t err = cudaEventQuery(as_event(event));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err, "cuda event query");
  return true;
}

void CUDAGuardImpl::synchronize_event(void* event) const {
  if (event) EMBER_CUDA_CHECK(cudaEventSynchronize(as_event(event)), "cuda event synchronize");
}

// Destroying needs no device switch; an event still pending is released by
// the driver once it completes (cudaEventDestroy's contract).
void CUDAGuardImpl::destroy_event(void* event) const noexcept {
  if (event) (void)cudaEventDestroy(as_event(event));
}

}  // namespace detail

}  // namespace ember::cuda
