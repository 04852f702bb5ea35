// torch.cuda's memory API over the caching allocators.
#include "ember/cuda/memory.h"
#include "ember/cuda/runtime.h"

#include <cstdio>

#include "caching_allocator.h"
#include "check.h"
#include "stream_internal.h"

namespace ember::cuda {

MemoryStats memory_stats(int16_t device) { return detail::device_allocator(device).stats(); }
int64_t memory_allocated(int16_t device) { return memory_stats(device).allocated_bytes; }
int64_t max_memory_allocated(int16_t device) { return memory_stats(device).max_allocated_bytes; }
int64_t memory_reserved(int16_t device) { return memory_stats(device).reserved_bytes; }
int64_t max_memory_reserved(int16_t device) { return memory_stats(device).max_reserved_bytes; }
void reset_peak_memory_stats(int16_t device) { detail::device_allocator(device).reset_peak_stats(); }
void reset_accumulated_memory_stats(int16_t device) { detail::device_allocator(device).reset_accumulated_stats(); }

std::string memory_summary(int16_t device) {
  device = detail::resolve_index(device, "cuda memory_summary");
  const MemoryStats s = memory_stats(device);
  auto mib = [](int64_t b) { return static_cast<double>(b) / (1 << 20); };
  char buf[1024];
  std::snprintf(buf, sizeof(buf),
                "Ember CUDA memory summary, cuda:%d\n"
                "  allocated          %12.2f MiB (peak %.2f MiB)\n"
                "  requested          %12.2f MiB\n"
                "  reserved           %12.2f MiB (peak %.2f MiB)\n"
                "  inactive in splits %12.2f MiB\n"
                "  active blocks      %12lld\n"
                "  segments           %12lld\n"
                "  allocations        %12lld (frees %lld)\n"
                "  cudaMalloc calls   %12lld (cudaFree %lld)\n"
                "  retries, OOMs      %12lld, %lld\n",
                device, mib(s.allocated_bytes), mib(s.max_allocated_bytes), mib(s.requested_bytes),
                mib(s.reserved_bytes), mib(s.max_reserved_bytes), mib(s.inactive_split_bytes),
                static_cast<long long>(s.active_blocks), static_cast<long long>(s.segments),
                static_cast<long long>(s.allocations), static_cast<long long>(s.frees),
                static_cast<long long>(s.device_allocations), static_cast<long long>(s.device_frees),
                static_cast<long long>(s.alloc_retries), static_cast<long long>(s.ooms));
  return buf;
}

void empty_cache() {
  for (int i = 0; i < cuda::device_count(); ++i) detail::device_allocator(static_cast<int16_t>(i)).empty_cache();
}

void set_per_process_memory_fraction(double fraction, int16_t device) {
  detail::device_allocator(device).set_memory_fraction(fraction);
}

void* raw_alloc(size_t nbytes) { return raw_alloc(nbytes, current_stream()); }

void* raw_alloc(size_t nbytes, const CUDAStream& stream) {
  return detail::device_allocator(stream.device_index()).allocate_on(nbytes, detail::to_cuda_stream(stream));
}

void raw_delete(void* ptr) {
  if (!ptr) return;
  cudaPointerAttributes attr{};
  EMBER_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr), "cuda raw_delete");
  EMBER_CHECK(attr.type == cudaMemoryTypeDevice, "cuda raw_delete: ", ptr, " is not GPU memory");
  detail::device_allocator(static_cast<int16_t>(attr.device)).free_ptr(ptr);
}

void record_stream(const Tensor& t, const CUDAStream& stream) {
  EMBER_CHECK(t.defined() && t.device().is_cuda(), "record_stream: the tensor must be a CUDA tensor, got one on ",
              t.defined() ? t.device() : kCPU);
  EMBER_CHECK(t.device().index == stream.device_index(), "record_stream: the tensor is on ", t.device(),
              ", the stream on cuda:", stream.device_index());
  Allocator* a = t.storage()->allocator();
  EMBER_CHECK(a != nullptr, "record_stream: the tensor's memory was not allocated by Ember's CUDA allocator");
  a->record_stream(t.storage()->data(), stream.unwrap());
}

Tensor pin_memory(const Tensor& t) {
  EMBER_CHECK(t.defined() && t.device().is_cpu(), "pin_memory: the tensor must be a CPU tensor, got one on ",
              t.defined() ? t.device() : kCPU);
  EMBER_CHECK(is_available(), "pin_memory: no CUDA device is available");
  const Tensor src = t.contiguous();
  auto storage = make_intrusive<StorageImpl>(static_cast<size_t>(src.nbytes()), &detail::pinned_host_allocator());
  Tensor out(make_intrusive<TensorImpl>(Storage(std::move(storage)), src.dtype(), src.sizes(), src.strides(), 0));
  out.copy_(src);
  return out;
}

bool is_pinned(const Tensor& t) {
  if (!t.defined() || !t.device().is_cpu() || !is_available() || t.numel() == 0) return false;
  return detail::pinned_host_allocator().owns(t.data_ptr());
}

HostMemoryStats host_memory_stats() { return detail::pinned_host_allocator().stats(); }
void empty_host_cache() { detail::pinned_host_allocator().empty_cache(); }

}  // namespace ember::cuda
