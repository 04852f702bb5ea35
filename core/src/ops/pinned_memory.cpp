// Tensor::pin_memory / is_pinned / record_stream: host memory a device can
// copy from and to asynchronously, and cross-stream use of a tensor's memory,
// device-generic through the allocators a backend registered (allocator.h).
#include "ember/core/allocator.h"
#include "ember/core/tensor.h"
#include "ember/core/memory_format.h"
#include "ember/ops/factories.h"

namespace ember {

Tensor Tensor::pin_memory(DeviceType device) const {
  EMBER_CHECK(defined(), "pin_memory: the tensor is undefined");
  EMBER_CHECK(this->device().is_cpu(), "pin_memory: cannot pin a tensor on ", this->device(),
              ": only CPU tensors can be pinned");
  EMBER_CHECK(device != DeviceType::CPU, "pin_memory: pinned memory is for a device type other than cpu");
  Allocator* pinned = find_pinned_host_allocator(device);
  EMBER_CHECK(pinned != nullptr, "pin_memory: no pinned host allocator is registered for ", device,
              " (is its backend linked, and is a device present?)");
  if (storage()->allocator() == pinned) return *this;  // as PyTorch: already pinned
  // Keeps a dense layout (a transposed tensor stays transposed), as PyTorch.
  const DimVector strides = is_non_overlapping_and_dense() ? DimVector(this->strides())
                                                           : strides_for(sizes(), MemoryFormat::Contiguous, "pin_memory");
  const size_t nbytes = static_cast<size_t>(numel()) * ::ember::element_size(dtype());
  auto storage = make_intrusive<StorageImpl>(nbytes, pinned);
  Tensor out(make_intrusive<TensorImpl>(Storage(std::move(storage)), dtype(), sizes(), strides, 0));
  out.copy_(*this);
  return out;
}

bool Tensor::is_pinned() const {
  if (!defined() || !device().is_cpu() || !storage()) return false;
  const Allocator* a = storage()->allocator();
  if (a == nullptr) return false;
  for (int t = 0; t < kNumDeviceTypes; ++t) {
    const DeviceType type = static_cast<DeviceType>(t);
    if (type != DeviceType::CPU && find_pinned_host_allocator(type) == a) return true;
  }
  return false;
}

void Tensor::record_stream(Stream stream) const {
  EMBER_CHECK(defined(), "record_stream: the tensor is undefined");
  const Device d = resolve_device(stream.device);
  EMBER_CHECK(d == device(), "record_stream: the tensor is on ", device(), ", the stream on ", d);
  Allocator* a = storage() ? storage()->allocator() : nullptr;
  // Memory Ember did not allocate (from_blob) is the caller's to keep alive.
  if (a) a->record_stream(storage()->data(), Stream{d, stream.id});
}

}  // namespace ember
