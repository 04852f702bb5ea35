// Note [oneDNN primitives]
// Convolutions, batch and layer normalization run on oneDNN (Debian's
// libdnnl, 2.x). Its CPU runtime is OpenMP (libgomp); the thread count each
// call gets is Ember's choice (Note [OpenMP libraries] in
// runtime/openmp_calls.cpp) and part of the primitive cache's key.
//
// Making a primitive descriptor and a primitive takes 10-100 us (the JIT
// generates code), far more than a small convolution; every primitive is made
// once per (shape, layout, parameters, threads) and kept in an LRU cache keyed by
// those integers. Executing a cached primitive is thread-safe.
//
// Layouts: a primitive created with format_tag::any picks its own blocked
// layout (nChw16c on AVX-512); the glue reorders user tensors into it and the
// result back into the Ember tensor, each reorder into a buffer from Ember's
// caching allocator. Channels-last tensors are given to oneDNN as nhwc, which
// its kernels read and write directly (no reorders but the weights').
#include "kernels/cpu/dnnl_utils.h"

#include <cstdlib>
#include <list>
#include <string>
#include <mutex>
#include <unordered_map>

#include "ember/ops/factories.h"
#include "runtime/openmp_calls.h"

namespace ember::dnnl_glue {

const dnnl::engine& engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

dims to_dims(IntArrayRef sizes) { return dims(sizes.begin(), sizes.end()); }

tag plain_tag(int64_t ndim, bool channels_last) {
  switch (ndim) {
    case 1: return tag::a;
    case 2: return tag::ab;
    case 3: return channels_last ? tag::acb : tag::abc;
    case 4: return channels_last ? tag::acdb : tag::abcd;
    case 5: return channels_last ? tag::acdeb : tag::abcde;
    default: break;
  }
  EMBER_CHECK(false, "oneDNN: unsupported number of dims ", ndim);
  return tag::undef;
}

tag weight_tag(int64_t spatial_dims, bool grouped) {
  if (!grouped) return plain_tag(spatial_dims + 2, false);
  switch (spatial_dims) {
    case 1: return tag::abcd;
    case 2: return tag::abcde;
    case 3: return tag::abcdef;
    default: break;
  }
  EMBER_CHECK(false, "oneDNN: unsupported number of spatial dims ", spatial_dims);
  return tag::undef;
}

dnnl::memory wrap(const dnnl::memory::desc& d, const Tensor& t) {
  return dnnl::memory(d, engine(), t.data_ptr());
}

dnnl::memory scratch(const dnnl::memory::desc& d, std::vector<Tensor>& keep) {
  const auto bytes = static_cast<int64_t>(d.get_size());
  keep.push_back(empty({std::max<int64_t>(bytes, 1)}, TensorOptions(kUInt8)));
  return dnnl::memory(d, engine(), keep.back().data_ptr());
}

// Note [User scratchpads]
// Primitives that need temporary memory (per-thread partial sums of a
// backward-weights reduction, im2col buffers) get it as a scratchpad. In
// oneDNN's default mode the library owns it, and Debian's build
// (DNNL_ENABLE_CONCURRENT_EXEC off) shares ONE scratchpad among all
// primitives, valid only when each primitive runs on the thread that made it.
// Ember's primitive cache is process-wide (a primitive made on one thread
// runs on any) and a convolution's two backward passes may run side by side
// on two threads (Note [Convolutions on shared cores] in
// nn/functional/conv.cpp), where the shared scratchpad made the two
// executions overwrite each other's buffers and crash in oneDNN. So
// every primitive is made with scratchpad_mode::user and each execution gets
// its own scratchpad from Ember's caching allocator (which reuses the block on
// the next call, so this costs no page faults after the first step).
dnnl::primitive_attr with_user_scratchpad(dnnl::primitive_attr attr) {
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args) {
  std::vector<Tensor> keep;
  if (scratchpad.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch(scratchpad, keep));
  prim.execute(stream(), args);
  stream().wait();
}

namespace {
struct Reorder {
  dnnl::reorder::primitive_desc pd;
  dnnl::reorder prim;
};

std::shared_ptr<Reorder> reorder_primitive(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  CacheKey key("reorder");
  key.add(from).add(to);
  return cached<Reorder>(key, [&] {
    dnnl::reorder::primitive_desc pd(engine(), from, engine(), to, with_user_scratchpad());
    return Reorder{pd, dnnl::reorder(pd)};
  });
}
}  // namespace

void reorder_into(const dnnl::memory& src, const dnnl::memory& dst) {
  auto r = reorder_primitive(src.get_desc(), dst.get_desc());
  execute(r->prim, r->pd.scratchpad_desc(), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

dnnl::memory reordered(const dnnl::memory& user, const dnnl::memory::desc& want, std::vector<Tensor>& keep) {
  if (user.get_desc() == want) return user;
  dnnl::memory out = scratch(want, keep);
  reorder_into(user, out);
  return out;
}

// Note [Reordered weight cache]
// Convolution weights reach oneDNN in a blocked layout of its choosing, and a
// reorder into it reads and writes every weight: for ResNet-50 at batch 1,
// 100 MB per forward, a fifth of its time. The weights rarely change, so the
// reordered copy is kept with the weight's storage (StorageImpl::derived_data,
// freed with it) and reused while the storage's version counter, which every
// in-place write bumps (optimizer steps, copy_, load_state_dict, init), is
// unchanged: inference reorders each weight once, a training step once
// instead of twice (forward and backward-data share the copy when they want
// the same layout). The entry also matches the view (data pointer, layout) and
// the wanted layout; a storage keeps a few entries. Writing into a weight
// through data_ptr() bypasses the version counter: call bump_version() after
// such a write. EMBER_DNNL_WEIGHT_CACHE=0 turns the cache off.
namespace {
struct DerivedEntry {
  uint64_t version;
  const void* data;
  dnnl::memory::desc user, want;
  Tensor buffer;
};
struct DerivedEntries {
  std::vector<DerivedEntry> entries;  // most recently used last
};
constexpr size_t kDerivedEntries = 4;
std::mutex derived_mutex;

bool weight_cache_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("EMBER_DNNL_WEIGHT_CACHE");
    return v == nullptr || std::string(v) != "0";
  }();
  return on;
}
}  // namespace

dnnl::memory reordered_cached(const Tensor& t, const dnnl::memory& user, const dnnl::memory::desc& want,
                              std::vector<Tensor>& keep) {
  if (user.get_desc() == want) return user;
  if (!weight_cache_enabled()) return reordered(user, want, keep);
  StorageImpl* storage = t.storage().get();
  const uint64_t version = storage->version();
  const void* data = t.data_ptr();
  {
    std::lock_guard<std::mutex> lock(derived_mutex);
    if (auto* d = static_cast<DerivedEntries*>(storage->derived_data().get())) {
      for (auto it = d->entries.begin(); it != d->entries.end(); ++it) {
        if (it->version == version && it->data == data && it->user == user.get_desc() && it->want == want) {
          DerivedEntry hit = *it;
          d->entries.erase(it);
          d->entries.push_back(hit);
          keep.push_back(hit.buffer);
          return dnnl::memory(want, engine(), hit.buffer.data_ptr());
        }
      }
    }
  }
  std::vector<Tensor> made;
  dnnl::memory out = scratch(want, made);
  reorder_into(user, out);
  keep.push_back(made.back());
  std::lock_guard<std::mutex> lock(derived_mutex);
  if (storage->version() != version) return out;  // written meanwhile: do not keep
  auto& slot = storage->derived_data();
  if (!slot) slot = std::make_shared<DerivedEntries>();
  auto* d = static_cast<DerivedEntries*>(slot.get());
  // Entries of older versions are dead; the oldest live one goes when full.
  std::erase_if(d->entries, [&](const DerivedEntry& e) { return e.version != version; });
  if (d->entries.size() >= kDerivedEntries) d->entries.erase(d->entries.begin());
  d->entries.push_back({version, data, user.get_desc(), want, made.back()});
  return out;
}

// ---- cache ----

CacheKey& CacheKey::add(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& m = d.data;
  add(m.ndims);
  for (int i = 0; i < m.ndims; ++i) add(m.dims[i]);
  add(static_cast<int64_t>(m.data_type));
  add(static_cast<int64_t>(m.format_kind));
  add(m.offset0);
  if (m.format_kind == dnnl_blocked) {
    const auto& b = m.format_desc.blocking;
    for (int i = 0; i < m.ndims; ++i) add(b.strides[i]);
    add(b.inner_nblks);
    for (int i = 0; i < b.inner_nblks; ++i) add(b.inner_blks[i]).add(b.inner_idxs[i]);
  }
  add(static_cast<int64_t>(m.extra.flags));
  return *this;
}

size_t CacheKey::hash() const {
  size_t h = std::hash<std::string>()(op_);
  for (int64_t v : v_) h = h * 1000003u ^ std::hash<int64_t>()(v);
  return h;
}

namespace {
struct KeyHash {
  size_t operator()(const CacheKey& k) const { return k.hash(); }
};

struct Cache {
  using Entry = std::pair<CacheKey, std::shared_ptr<void>>;
  std::mutex mu;
  std::list<Entry> lru;  // most recent first
  std::unordered_map<CacheKey, std::list<Entry>::iterator, KeyHash> index;
  size_t capacity = 1024;
  Cache() {
    if (const char* s = std::getenv("EMBER_DNNL_CACHE_CAPACITY")) capacity = std::max(1L, std::atol(s));
  }
};
Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: primitives may be used at exit
  return *c;
}
}  // namespace

std::shared_ptr<void> cache_lookup(const CacheKey& key_without_threads,
                                   const std::function<std::shared_ptr<void>()>& make) {
  // oneDNN fixes a primitive's OpenMP team size when it is made (Note [OpenMP
  // libraries]): the thread count Ember gives this call is part of the key.
  CacheKey key = key_without_threads;
  key.add(runtime::prepare_openmp_library_call());
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> g(c.mu);
    auto it = c.index.find(key);
    if (it != c.index.end()) {
      c.lru.splice(c.lru.begin(), c.lru, it->second);
      return it->second->second;
    }
  }
  // Built outside the lock (slow); a concurrent miss on the same key builds twice.
  std::shared_ptr<void> value = make();
  std::lock_guard<std::mutex> g(c.mu);
  auto it = c.index.find(key);
  if (it != c.index.end()) return it->second->second;
  c.lru.emplace_front(key, value);
  c.index.emplace(key, c.lru.begin());
  while (c.lru.size() > c.capacity) {
    c.index.erase(c.lru.back().first);
    c.lru.pop_back();
  }
  return value;
}

size_t cache_size() {
  std::lock_guard<std::mutex> g(cache().mu);
  return cache().lru.size();
}

}  // namespace ember::dnnl_glue
