#pragma once
// The CUDA runtime as Ember sees it: whether a GPU is there, how many, their
// properties, the current device and whole-device synchronization
// (torch.cuda.is_available, device_count, get_device_properties, synchronize).
// Nothing here needs a GPU: on a machine without one (or without a driver)
// is_available() is false and device_count() is 0, and Ember's CUDA backend
// registers nothing into core (docs/cuda.md, "Without a GPU").
#include <cstdint>
#include <string>

namespace ember::cuda {

bool is_available();
int device_count();
// The calling thread's current CUDA device (cudaGetDevice); 0 when none was set.
int16_t current_device();
// Makes `index` the calling thread's current device; an ember::Error for an
// index outside [0, device_count()).
void set_device(int16_t index);

struct DeviceProperties {
  std::string name;         // "NVIDIA H200"
  int major = 0, minor = 0;  // compute capability (9.0 for Hopper)
  int64_t total_memory = 0;  // bytes
  int multi_processor_count = 0;
  int max_threads_per_block = 0;
  int max_threads_per_multi_processor = 0;
  int warp_size = 0;
  int64_t l2_cache_size = 0;            // bytes
  int64_t shared_memory_per_block = 0;  // bytes
  int memory_bus_width = 0;             // bits
};
// index -1: the current device.
DeviceProperties get_device_properties(int16_t index = -1);

// Waits until all work on every stream of device `index` (-1: current) is done.
void synchronize(int16_t index = -1);

// CUDA versions as integers (13000 is 13.0): the runtime Ember was built
// against and the installed driver's (0 when there is no driver).
int runtime_version();
int driver_version();

}  // namespace ember::cuda
