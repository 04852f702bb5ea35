#pragma once
// Per-thread scratch buffers for the FFT engine. Each thread (the caller and
// every OpenMP worker) keeps a few growable, 64-byte aligned buffers, one per
// Slot, so transforms allocate (and page-fault) only the first time a size is
// seen on that thread. Slots keep nested users apart: a worker's lane buffers
// never alias the caller's four-step matrix or Bluestein buffer.
#include <cstddef>

namespace ember::fft::detail {

enum class Slot : int {
  LaneA,       // lane-layout ping-pong buffers (any thread)
  LaneB,
  FourStep,    // the four-step's intermediate matrix (calling thread)
  Bluestein,   // Bluestein's length-m work buffer (calling thread)
  RealHalf,    // the large real transforms' half-length complex buffer
  kCount
};

// At least `bytes` bytes, 64-byte aligned, valid until the next call with the
// same slot on this thread. Contents are unspecified.
void* scratch_bytes(Slot slot, std::size_t bytes);

template <class T>
T* scratch(Slot slot, std::size_t count) {
  return static_cast<T*>(scratch_bytes(slot, count * sizeof(T)));
}

}  // namespace ember::fft::detail
