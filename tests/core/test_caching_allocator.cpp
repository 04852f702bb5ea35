// The CPU caching allocator (Note [CPU caching allocator]): reuse by size,
// guard scoping, empty_cache, the bound on cached bytes, and that tensors made
// under a guard hand their memory back to the allocator that made them.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include <ember/ember.h>

using namespace ember;

namespace caching_allocator_test {
constexpr size_t kBig = 256 * 1024;  // above the default 64 KiB caching threshold

TEST(CachingAllocator, FreedBlockIsReusedForTheSameSize) {
  CachingAllocator a;
  void* p = a.allocate(kBig);
  EXPECT_EQ(a.misses(), 1u);
  a.deallocate(p, kBig);
  EXPECT_EQ(a.cached_bytes(), kBig);
  void* q = a.allocate(kBig);
  EXPECT_EQ(q, p) << "the cached block comes back";
  EXPECT_EQ(a.hits(), 1u);
  EXPECT_EQ(a.cached_bytes(), 0u);
  // Sizes round to pages: a slightly smaller request lands in the same bucket.
  a.deallocate(q, kBig);
  void* r = a.allocate(kBig - 100);
  EXPECT_EQ(r, p);
  EXPECT_EQ(a.hits(), 2u);
  // Another size misses.
  void* s = a.allocate(2 * kBig);
  EXPECT_NE(s, p);
  EXPECT_EQ(a.misses(), 2u);
  a.deallocate(r, kBig - 100);
  a.deallocate(s, 2 * kBig);
  EXPECT_EQ(a.cached_bytes(), 3 * kBig);
}

TEST(CachingAllocator, SmallBlocksBypassTheCache) {
  CachingAllocator a;
  void* p = a.allocate(1024);
  a.deallocate(p, 1024);
  EXPECT_EQ(a.cached_bytes(), 0u);
  EXPECT_EQ(a.hits() + a.misses(), 0u);
  a.deallocate(nullptr, 0);
  EXPECT_EQ(a.allocate(0), nullptr);
}

TEST(CachingAllocator, EmptyCacheAndMaxCachedBytes) {
  CachingAllocator a(/*max_cached_bytes=*/3 * kBig);
  void* b1 = a.allocate(kBig);
  void* b2 = a.allocate(2 * kBig);
  void* b3 = a.allocate(kBig);
  a.deallocate(b1, kBig);
  a.deallocate(b2, 2 * kBig);
  EXPECT_EQ(a.cached_bytes(), 3 * kBig);
  a.deallocate(b3, kBig);  // over the bound by one block: the smallest that covers it goes
  EXPECT_LE(a.cached_bytes(), 3 * kBig);
  EXPECT_EQ(a.cached_bytes(), 3 * kBig);
  void* again = a.allocate(2 * kBig);
  EXPECT_EQ(again, b2) << "the larger block stayed";
  a.deallocate(again, 2 * kBig);
  void* big = a.allocate(8 * kBig);
  a.deallocate(big, 8 * kBig);  // bigger than the whole bound: never cached
  EXPECT_EQ(a.cached_bytes(), 3 * kBig);
  a.set_max_cached_bytes(kBig);
  EXPECT_LE(a.cached_bytes(), kBig);
  a.empty_cache();
  EXPECT_EQ(a.cached_bytes(), 0u);
  const size_t hits = a.hits();
  a.deallocate(a.allocate(kBig), kBig);
  EXPECT_EQ(a.hits(), hits) << "nothing left to hit after empty_cache";
}

TEST(CachingAllocator, DefaultCachesUpToThePeakBeyondTheFixedBound) {
  // Note [Caching up to the peak]: with the fixed bound at one block, a
  // "step" of 4 live blocks is still cached whole by the default allocator and
  // reused whole by the next step. (Other tests' tensors may be alive: the
  // checks count from empty_cache(), which restarts the peak at the live bytes.)
  CachingAllocator& a = default_caching_allocator();
  a.empty_cache();
  a.set_max_cached_bytes(kBig);
  std::vector<void*> step;
  for (int i = 0; i < 4; ++i) step.push_back(a.allocate(kBig));
  for (void* p : step) a.deallocate(p, kBig);
  EXPECT_EQ(a.cached_bytes(), 4 * kBig) << "live + cached stays within the peak";
  const size_t hits = a.hits(), misses = a.misses();
  for (int i = 0; i < 4; ++i) step[i] = a.allocate(kBig);
  EXPECT_EQ(a.hits(), hits + 4);
  EXPECT_EQ(a.misses(), misses);
  EXPECT_EQ(a.cached_bytes(), 0u);
  for (void* p : step) a.deallocate(p, kBig);
  // A miss of another size that would push live + cached past the peak
  // evicts cached blocks first: the footprint stays at the peak.
  void* other = a.allocate(2 * kBig);
  EXPECT_EQ(a.misses(), misses + 1);
  EXPECT_EQ(a.cached_bytes(), 2 * kBig);
  a.deallocate(other, 2 * kBig);
  EXPECT_EQ(a.cached_bytes(), 4 * kBig);
  // At a new peak the cache keeps only the fixed bound's worth beside it.
  void* huge = a.allocate(8 * kBig);
  EXPECT_EQ(a.cached_bytes(), kBig);
  a.deallocate(huge, 8 * kBig);
  EXPECT_EQ(a.cached_bytes(), 8 * kBig);
  // empty_cache returns everything and forgets the peak: the fixed bound
  // applies again.
  a.empty_cache();
  EXPECT_EQ(a.cached_bytes(), 0u);
  void* b1 = a.allocate(kBig);
  void* b2 = a.allocate(kBig);
  a.deallocate(b1, kBig);
  a.deallocate(b2, kBig);
  EXPECT_EQ(a.cached_bytes(), 2 * kBig) << "the peak restarted after empty_cache";
  a.empty_cache();
  a.deallocate(a.allocate(kBig), kBig);
  a.deallocate(a.allocate(kBig), kBig);
  EXPECT_EQ(a.cached_bytes(), kBig);
  a.set_max_cached_bytes(size_t(2) << 30);  // the default's bound
  a.empty_cache();
}

TEST(CachingAllocator, PrivateCachesKeepTheFixedBound) {
  CachingAllocator a(/*max_cached_bytes=*/kBig);
  std::vector<void*> step;
  for (int i = 0; i < 4; ++i) step.push_back(a.allocate(kBig));
  for (void* p : step) a.deallocate(p, kBig);
  EXPECT_EQ(a.cached_bytes(), kBig);
}

TEST(CachingAllocator, GuardScopesTensorAllocations) {
  CachingAllocator mine;
  Allocator* outside = cpu_allocator();
  {
    CachingAllocatorGuard guard(&mine);
    EXPECT_EQ(cpu_allocator(), &mine);
    {
      Tensor t = empty({static_cast<int64_t>(kBig / 4)}, kFloat32);
      EXPECT_EQ(mine.misses(), 1u);
    }
    EXPECT_EQ(mine.cached_bytes(), kBig) << "the freed tensor went back to the guard's allocator";
    Tensor again = empty({static_cast<int64_t>(kBig / 4)}, kFloat32);
    EXPECT_EQ(mine.hits(), 1u);
    // Nested guards restore the outer one.
    CachingAllocator inner;
    {
      CachingAllocatorGuard g2(&inner);
      EXPECT_EQ(cpu_allocator(), &inner);
    }
    EXPECT_EQ(cpu_allocator(), &mine);
    // Other threads don't see this thread's guard.
    Allocator* seen = nullptr;
    std::thread([&] { seen = cpu_allocator(); }).join();
    EXPECT_EQ(seen, outside);
  }
  EXPECT_EQ(cpu_allocator(), outside);
  EXPECT_THROW(CachingAllocatorGuard(nullptr), Error);
}

TEST(CachingAllocator, TensorFreedAfterTheGuardReturnsToItsAllocator) {
  CachingAllocator mine;
  Tensor t;
  {
    CachingAllocatorGuard guard(&mine);
    t = ones({static_cast<int64_t>(kBig / 4)});
  }
  EXPECT_EQ(mine.cached_bytes(), 0u);
  t = Tensor();
  EXPECT_EQ(mine.cached_bytes(), kBig);
  mine.empty_cache();
}

TEST(CachingAllocator, DefaultAllocatorReusesOpOutputs) {
  CachingAllocator& a = default_caching_allocator();
  ASSERT_EQ(cpu_allocator(), &a) << "the default CPU allocator is the caching one";
  Tensor x = ones({100000});
  { Tensor y = exp(x); }
  const size_t hits = a.hits();
  Tensor z = exp(x);  // same size as the freed output
  EXPECT_EQ(a.hits(), hits + 1);
  EXPECT_FLOAT_EQ(z.data_ptr<float>()[7], std::exp(1.f));
}

TEST(CachingAllocator, PlainAllocatorCanReplaceTheDefault) {
  set_cpu_allocator(&plain_cpu_allocator());
  EXPECT_EQ(cpu_allocator(), &plain_cpu_allocator());
  Tensor t = ones({1000});
  EXPECT_EQ(t.sum().item<double>(), 1000.0);
  set_cpu_allocator(nullptr);
  EXPECT_EQ(cpu_allocator(), &default_caching_allocator());
}

}  // namespace caching_allocator_test
