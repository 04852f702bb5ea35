#pragma once
// Storage: a ref-counted buffer shared by a tensor and all of its views.
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "ember/core/allocator.h"
#include "ember/core/intrusive_ptr.h"

namespace ember {

class StorageImpl : public RefCounted {
 public:
  // Allocates nbytes from allocator.
  StorageImpl(size_t nbytes, Allocator* allocator);
  // Wraps memory the caller owns; deleter (may be empty) runs when the last user goes.
  StorageImpl(void* data, size_t nbytes, Device device, std::function<void(void*)> deleter);
  ~StorageImpl() override;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  Allocator* allocator() const { return allocator_; }

  // Version counter shared by all views of this storage: bumped by every
  // in-place write, read by autograd to detect modified saved tensors.
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

  // Data a backend derived from these bytes and keeps for reuse, freed with
  // the storage (e.g. oneDNN's reordered convolution weights, Note [Reordered
  // weight cache] in kernels/cpu/dnnl_utils.cpp). The backend owns the format
  // and the locking, and must check version() before trusting it.
  std::shared_ptr<void>& derived_data() { return derived_; }

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  Allocator* allocator_ = nullptr;
  std::function<void(void*)> deleter_;
  std::atomic<uint64_t> version_{0};
  std::shared_ptr<void> derived_;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace ember
