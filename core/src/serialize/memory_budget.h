#pragma once
// Note [Checkpoint memory budget]
// A pickle is a program, and a short one can ask for a lot of memory: a 1 MB
// string referenced 1,000 times through the memo, 16 M `None`s (1 byte each)
// in a list, 2 M empty lists, 16 M memo entries. Checking each allocation
// against the file size is not enough when every allocation is small, so a
// load carries one MemoryBudget: per_file_byte * input size + floor bytes
// (ember/serialize/memory_limit.h). Everything the load builds is charged
// before it is allocated:
//  - the bytes it reads into memory (the pickle, a safetensors header, the
//    zip central directory) and the tensor storages;
//  - every arena node, string, container element, memo entry and dict index
//    entry of the unpickler (serialize/unpickler.h), and every JSON value of
//    a safetensors header;
//  - the IValue tree it returns (each list's and dict's elements, tensors).
// Growing vectors are charged by capacity: reserve_more() charges the new
// buffer while the old one is still held, then releases the old one, so the
// charged total follows the real peak, not the final size. Per allocation the
// charges add kHeapBlockOverhead for malloc's bookkeeping. What is shared in
// the file (memo references, a string used as a key of many dicts) is shared
// in memory and charged once. Going over the limit raises ember::Error naming
// the file, the limit and what was being built, before allocating it; a
// std::bad_alloc (an address-space limit, an exhausted machine) becomes an
// ember::Error naming the file and the last thing charged (run_within).
// The fuzz targets (fuzz/fuzz_torch_pickle.cpp, fuzz_torch_load.cpp,
// fuzz_safetensors.cpp) check the charges against the heap: the peak of live
// heap bytes during a load must stay within the limit (docs/serialization.md).
#include <algorithm>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace ember::serialize {

// malloc's per-block bookkeeping, added to each charged heap allocation.
inline constexpr uint64_t kHeapBlockOverhead = 16;
// One entry of an unordered_map with small keys: its node and its share of
// the bucket array (rehashed into one twice the size: both are held then).
inline constexpr uint64_t kHashEntryBytes = 48 + kHeapBlockOverhead + 3 * sizeof(void*);
// What tensor data of nbytes costs: the CPU allocator rounds blocks up (to 64
// bytes, and to 4 KiB pages for the blocks of 64 KiB and more, which it
// caches), plus the StorageImpl.
inline constexpr uint64_t tensor_data_bytes(uint64_t nbytes) {
  const uint64_t unit = nbytes < (uint64_t{64} << 10) ? 64 : 4096;
  return (nbytes + unit - 1) / unit * unit + 192;
}

class MemoryBudget {
 public:
  // what: the error prefix ("load_torch: model.pt"); input_bytes: the input's
  // size, to which the limit is proportional.
  MemoryBudget(std::string what, uint64_t input_bytes);

  // Accounts `bytes` about to be allocated for `item` (a string literal);
  // raises ember::Error when the load would exceed its limit.
  void charge(uint64_t bytes, const char* item) {
    last_item_ = item;
    last_bytes_ = bytes;
    last_used_ = used_;
    if (bytes > limit_ - used_) exceeded(bytes, item);
    used_ += bytes;
    peak_ = std::max(peak_, used_);
  }
  void release(uint64_t bytes) { used_ -= std::min(bytes, used_); }

  // Makes room for `extra` more elements in v, charging the new buffer
  // (geometric growth) while the old one is still held.
  template <class T>
  void reserve_more(std::vector<T>& v, size_t extra, const char* item) {
    const size_t need = v.size() + extra;
    if (need <= v.capacity()) return;
    const size_t cap = std::max({need, 2 * v.capacity(), size_t(4)});
    charge(cap * sizeof(T) + kHeapBlockOverhead, item);
    const uint64_t old = v.capacity() ? v.capacity() * sizeof(T) + kHeapBlockOverhead : 0;
    v.reserve(cap);
    release(old);
  }
  // Gives back the spare capacity of a vector that has shrunk to under a
  // quarter of it (the unpickler's stack after a large LIST or APPENDS).
  template <class T>
  void shrink(std::vector<T>& v, const char* item) {
    if (v.capacity() < 4096 || v.size() >= v.capacity() / 4) return;
    const uint64_t old = v.capacity() * sizeof(T) + kHeapBlockOverhead;
    charge(v.size() * 2 * sizeof(T) + kHeapBlockOverhead, item);
    std::vector<T> smaller;
    smaller.reserve(v.size() * 2);
    smaller.assign(v.begin(), v.end());
    v.swap(smaller);
    release(old);
  }

  uint64_t used() const { return used_; }
  uint64_t peak() const { return peak_; }
  uint64_t limit() const { return limit_; }
  const std::string& what() const { return what_; }

  // The ember::Error for a failed allocation: names the file and the last
  // thing charged (what was being allocated).
  [[noreturn]] void out_of_memory(const char* cause) const;

 private:
  [[noreturn]] void exceeded(uint64_t bytes, const char* item) const;

  std::string what_;
  uint64_t input_bytes_ = 0, limit_ = 0, used_ = 0, peak_ = 0;
  // The last charge (what was being allocated), for out_of_memory().
  const char* last_item_ = "working memory";
  uint64_t last_bytes_ = 0, last_used_ = 0;
};

// Runs f(); a std::bad_alloc or std::length_error escaping it becomes
// budget.out_of_memory(), an ember::Error naming the file.
template <class F>
decltype(auto) run_within(const MemoryBudget& budget, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    budget.out_of_memory("std::bad_alloc");
  } catch (const std::length_error&) {
    budget.out_of_memory("std::length_error");
  }
}

}  // namespace ember::serialize
