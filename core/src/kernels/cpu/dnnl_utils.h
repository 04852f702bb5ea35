#pragma once
// oneDNN glue shared by the dnnl_*.cpp kernels (Note [oneDNN primitives] in
// dnnl_utils.cpp): the CPU engine and stream, memory descriptors for Ember
// tensors, reorders into Ember-allocated buffers, and a cache of primitives.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::dnnl_glue {

// The process-wide CPU engine (made on first use).
const dnnl::engine& engine();
// A stream on it; one per thread (streams are not meant to be shared).
dnnl::stream& stream();

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

dims to_dims(IntArrayRef sizes);
// Plain layouts for a tensor of `ndim` dims: row-major or channels-last.
tag plain_tag(int64_t ndim, bool channels_last);
// Weight layouts: [O, I, k...] (groups == 1) or [G, O/G, I/G, k...].
tag weight_tag(int64_t spatial_dims, bool grouped);

// A memory object over t's data (t must be dense in the layout `d` describes).
dnnl::memory wrap(const dnnl::memory::desc& d, const Tensor& t);

// Brings `user` into layout `want`: user itself when the layouts match, else a
// reordered copy in a buffer owned by `keep` (so it lives until execution).
dnnl::memory reordered(const dnnl::memory& user, const dnnl::memory::desc& want,
                       std::vector<Tensor>& keep);
// `user` (the memory over tensor t's data) in layout `want`, kept with t's
// storage and reused while the storage's version is unchanged (Note
// [Reordered weight cache]): for operands that change rarely (weights).
dnnl::memory reordered_cached(const Tensor& t, const dnnl::memory& user, const dnnl::memory::desc& want,
                              std::vector<Tensor>& keep);
// A buffer of layout `d` owned by `keep` (a primitive's output in its own layout).
dnnl::memory scratch(const dnnl::memory::desc& d, std::vector<Tensor>& keep);
// Copies src into dst (any layouts, same logical shape) and waits.
void reorder_into(const dnnl::memory& src, const dnnl::memory& dst);

// Note [User scratchpads]: every Ember primitive is made with these
// attributes (scratchpad_mode::user) and executed through execute(), which
// hands it a scratchpad from Ember's caching allocator.
dnnl::primitive_attr with_user_scratchpad(dnnl::primitive_attr attr = dnnl::primitive_attr());
// Executes `prim` on this thread's stream with a scratchpad of layout
// `scratchpad` (the primitive descriptor's scratchpad_desc()) and waits.
void execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args);

// ---- primitive cache ----
// A key: the op's name plus every integer that shapes the primitive.
class CacheKey {
 public:
  explicit CacheKey(const char* op) : op_(op) {}
  CacheKey& add(int64_t v) {
    v_.push_back(v);
    return *this;
  }
  CacheKey& add(IntArrayRef vs) {
    v_.push_back(static_cast<int64_t>(vs.size()));
    for (int64_t v : vs) v_.push_back(v);
    return *this;
  }
  CacheKey& add(const dnnl::memory::desc& d);
  bool operator==(const CacheKey& o) const { return op_ == o.op_ && v_ == o.v_; }
  size_t hash() const;

 private:
  std::string op_;
  std::vector<int64_t> v_;
};

// Looks the key up in a process-wide LRU cache (capacity
// EMBER_DNNL_CACHE_CAPACITY, default 1024); on a miss, make() builds the entry.
std::shared_ptr<void> cache_lookup(const CacheKey& key, const std::function<std::shared_ptr<void>()>& make);

template <class T, class Make>
std::shared_ptr<T> cached(const CacheKey& key, Make&& make) {
  return std::static_pointer_cast<T>(
      cache_lookup(key, [&]() -> std::shared_ptr<void> { return std::make_shared<T>(make()); }));
}

// Number of entries now cached (tests).
size_t cache_size();

}  // namespace ember::dnnl_glue
