// ember::fft on CUDA tensors (cuFFT, cuda/src/kernels/fft.cpp) against the CPU
// engine (itself checked against PyTorch/numpy), and the plan cache's host
// logic (fft_plan_cache.h), which runs without a GPU.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuda/cuda_test.h"
#include "fft_plan_cache.h"

namespace ember::cuda {
namespace {

using testing::CudaTest;
using testing::expect_matches_cpu;

// ---- the plan cache's LRU, on the host ----

struct FakePlan {
  int id;
};
using TestCache = detail::LruCache<detail::FFTPlanKey, FakePlan, detail::FFTPlanKeyHash>;

detail::FFTPlanKey key_of(int64_t n, int type = 0x29) {
  detail::FFTPlanKey k;
  k.type = type;
  k.rank = 1;
  k.n[0] = k.inembed[0] = k.onembed[0] = n;
  k.idist = k.odist = n;
  k.batch = 1;
  return k;
}

TEST(CudaFFTPlanCache, LruKeepsTheMostRecentlyUsedPlans) {
  TestCache cache(3);
  int made = 0;
  auto make = [&made](const detail::FFTPlanKey&) { return std::make_shared<FakePlan>(FakePlan{made++}); };
  EXPECT_EQ(cache.get(key_of(8), make)->id, 0);
  EXPECT_EQ(cache.get(key_of(16), make)->id, 1);
  EXPECT_EQ(cache.get(key_of(32), make)->id, 2);
  EXPECT_EQ(cache.get(key_of(8), make)->id, 0);  // a hit: 8 is now the most recent
  EXPECT_EQ(made, 3);
  EXPECT_EQ(cache.size(), 3);
  const auto held = cache.get(key_of(16), make);  // 16 most recent, 32 the least
  cache.get(key_of(64), make);                    // evicts 32
  EXPECT_EQ(cache.size(), 3);
  EXPECT_FALSE(cache.contains(key_of(32)));
  EXPECT_TRUE(cache.contains(key_of(8)) && cache.contains(key_of(16)) && cache.contains(key_of(64)));
  // Shrinking drops the least recently used (8, then 16); a held plan stays alive.
  cache.set_max_size(1);
  EXPECT_EQ(cache.size(), 1);
  EXPECT_TRUE(cache.contains(key_of(64)));
  EXPECT_EQ(held->id, 1);
  // Keys differ by any field: another type of the same length is another plan.
  EXPECT_EQ(cache.get(key_of(64, 0x2a), make)->id, 4);
  EXPECT_FALSE(cache.contains(key_of(64)));
  // Size 0: nothing kept, every call makes a plan.
  cache.set_max_size(0);
  EXPECT_EQ(cache.size(), 0);
  EXPECT_EQ(cache.get(key_of(8), make)->id, 5);
  EXPECT_EQ(cache.get(key_of(8), make)->id, 6);
  EXPECT_EQ(cache.size(), 0);
  cache.set_max_size(10);
  cache.get(key_of(8), make);
  cache.get(key_of(9), make);
  cache.clear();
  EXPECT_EQ(cache.size(), 0);
  EXPECT_EQ(cache.max_size(), 10);
}

TEST(CudaFFTPlanCache, KeysHashAndCompareByEveryField) {
  const detail::FFTPlanKeyHash hash;
  detail::FFTPlanKey a = key_of(100), b = key_of(100);
  EXPECT_EQ(a, b);
  EXPECT_EQ(hash(a), hash(b));
  b.batch = 2;
  EXPECT_NE(a, b);
  b = a;
  b.onembed[0] = 51;
  EXPECT_NE(a, b);
  b = a;
  b.rank = 2;
  EXPECT_NE(a, b);
}

TEST(CudaFFTPlanCache, PublicApiNeedsADevice) {
  if (is_available()) {
    EXPECT_EQ(fft_plan_cache_max_size(), detail::kDefaultFFTPlanCacheMaxSize);
    EXPECT_THROW(set_fft_plan_cache_max_size(-1), Error);
    return;
  }
  EXPECT_THROW(fft_plan_cache_size(), Error);
  EXPECT_THROW(set_fft_plan_cache_max_size(10), Error);
  EXPECT_THROW(clear_fft_plan_cache(), Error);
}

// ---- transforms against the CPU ----

// Float tolerance of an FFT result: relative to the result's largest
// magnitude (rounding errors grow like log n times the largest value).
void expect_fft_matches(const Tensor& gpu_result, const Tensor& cpu_result, const std::string& what) {
  // Inverse transforms of real inputs return conjugate views: compare values.
  const Tensor gpu = gpu_result.resolve_conj(), cpu = cpu_result.resolve_conj();
  const bool is_double = cpu.dtype() == kComplex128 || cpu.dtype() == kFloat64;
  const Tensor mag = cpu.is_complex() ? view_as_real(cpu) : cpu;
  const double scale = mag.numel() ? mag.abs().max().item<double>() : 0.0;
  const double eps = is_double ? 1e-12 : 2e-5;
  expect_matches_cpu(gpu, cpu, eps, eps * std::max(1.0, scale), what);
}

Tensor complex_input(IntArrayRef shape, DType dtype, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, TensorOptions(dtype));
}

TEST_P(CudaTest, FftAndIfftMatchTheCpu) {
  for (DType dtype : {kComplex64, kComplex128}) {
    for (int64_t n : {1, 2, 7, 16, 97, 1000, 4096, 30030}) {
      const Tensor x = complex_input({3, n}, dtype, static_cast<uint64_t>(n));
      const Tensor xg = x.to(kCUDA);
      for (const char* norm : {"backward", "forward", "ortho"}) {
        const std::string what = std::string(dtype_name(dtype)) + " n=" + std::to_string(n) + " " + norm;
        expect_fft_matches(fft::fft(xg, std::nullopt, -1, norm), fft::fft(x, std::nullopt, -1, norm), "fft " + what);
        expect_fft_matches(fft::ifft(xg, std::nullopt, -1, norm), fft::ifft(x, std::nullopt, -1, norm), "ifft " + what);
      }
      // Along dim 0 (a strided batch), with padding and cropping.
      expect_fft_matches(fft::fft(xg, 5, 0), fft::fft(x, 5, 0), "fft dim 0 padded");
      expect_fft_matches(fft::fft(xg, n + 3, 1), fft::fft(x, n + 3, 1), "fft padded");
      if (n > 2) expect_fft_matches(fft::fft(xg, n / 2, 1), fft::fft(x, n / 2, 1), "fft cropped");
    }
  }
}

TEST_P(CudaTest, RealTransformsMatchTheCpu) {
  for (DType dtype : {kFloat32, kFloat64}) {
    for (int64_t n : {1, 2, 5, 16, 99, 1024, 4097}) {
      manual_seed(static_cast<uint64_t>(n));
      const Tensor x = randn({4, n}, TensorOptions(dtype));
      const Tensor xg = x.to(kCUDA);
      const std::string what = std::string(dtype_name(dtype)) + " n=" + std::to_string(n);
      expect_fft_matches(fft::rfft(xg), fft::rfft(x), "rfft " + what);
      expect_fft_matches(fft::ihfft(xg), fft::ihfft(x), "ihfft " + what);
      // A real input through fft: the full spectrum (conjugate symmetry filled in).
      expect_fft_matches(fft::fft(xg), fft::fft(x), "fft of real " + what);
      expect_fft_matches(fft::ifft(xg, std::nullopt, -1, "ortho"), fft::ifft(x, std::nullopt, -1, "ortho"),
                         "ifft of real " + what);
      // Half spectra back to real signals of even and odd length.
      const Tensor h = fft::rfft(x);
      for (int64_t len : {n, n + 1}) {
        expect_fft_matches(fft::irfft(h.to(kCUDA), len), fft::irfft(h, len), "irfft " + what);
        expect_fft_matches(fft::hfft(h.to(kCUDA), len), fft::hfft(h, len), "hfft " + what);
      }
    }
  }
}

TEST_P(CudaTest, IrfftIgnoresTheImaginaryPartsARealSignalCannotHave) {
  // Non-zero imaginary parts in bin 0 and bin n/2: ignored, as on the CPU (numpy).
  const Tensor h = complex_input({2, 9}, kComplex64, 5);
  for (int64_t len : {16, 17}) {
    expect_fft_matches(fft::irfft(h.to(kCUDA), len), fft::irfft(h, len), "irfft len=" + std::to_string(len));
    expect_fft_matches(fft::irfftn(h.to(kCUDA), IntArrayRef{3, len}, IntArrayRef{0, 1}),
                       fft::irfftn(h, IntArrayRef{3, len}, IntArrayRef{0, 1}), "irfftn 2-d");
  }
  // The caller's input is left as it was (cuFFT's C2R overwrites its input).
  const Tensor hg = h.to(kCUDA);
  (void)fft::irfft(hg, 16);
  expect_matches_cpu(hg, h, 0, 0, "irfft input untouched");
}

TEST_P(CudaTest, MultiDimTransformsMatchTheCpu) {
  for (DType dtype : {kComplex64, kComplex128}) {
    const Tensor x = complex_input({3, 6, 10, 5}, dtype, 1);
    const Tensor xg = x.to(kCUDA);
    expect_fft_matches(fft::fft2(xg), fft::fft2(x), "fft2");
    expect_fft_matches(fft::ifft2(xg, std::nullopt, {0, 2}, "ortho"), fft::ifft2(x, std::nullopt, {0, 2}, "ortho"),
                       "ifft2 dims 0, 2");
    expect_fft_matches(fft::fftn(xg), fft::fftn(x), "fftn over 4 dims (two plans)");
    expect_fft_matches(fft::fftn(xg, IntArrayRef{4, 8, 3}, IntArrayRef{3, 1, 2}),
                       fft::fftn(x, IntArrayRef{4, 8, 3}, IntArrayRef{3, 1, 2}), "fftn s, unordered dims");
    expect_fft_matches(fft::ifftn(xg, std::nullopt, IntArrayRef{-1, 0}, "forward"),
                       fft::ifftn(x, std::nullopt, IntArrayRef{-1, 0}, "forward"), "ifftn");
  }
  for (DType dtype : {kFloat32, kFloat64}) {
    manual_seed(2);
    const Tensor x = randn({2, 7, 6, 9}, TensorOptions(dtype));
    const Tensor xg = x.to(kCUDA);
    expect_fft_matches(fft::rfft2(xg), fft::rfft2(x), "rfft2");
    expect_fft_matches(fft::rfftn(xg), fft::rfftn(x), "rfftn over 4 dims");
    expect_fft_matches(fft::rfftn(xg, std::nullopt, IntArrayRef{2, 0}), fft::rfftn(x, std::nullopt, IntArrayRef{2, 0}),
                       "rfftn dims 2, 0");
    expect_fft_matches(fft::fftn(xg), fft::fftn(x), "fftn of real: full spectrum over 4 dims");
    expect_fft_matches(fft::fft2(xg), fft::fft2(x), "fft2 of real: full spectrum");
    expect_fft_matches(fft::fftn(xg, std::nullopt, IntArrayRef{1, 2, 3}),
                       fft::fftn(x, std::nullopt, IntArrayRef{1, 2, 3}), "fftn of real over 3 dims");
    const Tensor h = fft::rfftn(x);
    expect_fft_matches(fft::irfftn(h.to(kCUDA), IntArrayRef{2, 7, 6, 9}), fft::irfftn(h, IntArrayRef{2, 7, 6, 9}),
                       "irfftn over 4 dims");
    const Tensor h2 = fft::rfft2(x);
    expect_fft_matches(fft::irfft2(h2.to(kCUDA), IntArrayRef{6, 9}), fft::irfft2(h2, IntArrayRef{6, 9}), "irfft2");
  }
}

TEST_P(CudaTest, FftTakesAnyLayout) {
  const Tensor base = complex_input({12, 20}, kComplex64, 3);
  const Tensor bg = base.to(kCUDA);
  // Transposed, sliced with an offset, strided.
  expect_fft_matches(fft::fft(bg.t()), fft::fft(base.t()), "transposed");
  expect_fft_matches(fft::fft(bg.narrow(1, 3, 11)), fft::fft(base.narrow(1, 3, 11)), "narrowed");
  expect_fft_matches(fft::fft(bg.slice(1, 0, 20, 3)), fft::fft(base.slice(1, 0, 20, 3)), "strided");
  // A real input starting 4 bytes past an 8-byte boundary (cuFFT alignment).
  manual_seed(4);
  const Tensor r = randn({101});
  const Tensor rg = r.to(kCUDA);
  expect_fft_matches(fft::rfft(rg.narrow(0, 1, 100)), fft::rfft(r.narrow(0, 1, 100)), "unaligned rfft");
  // A conjugate view (resolved before the slot).
  expect_fft_matches(fft::fft(bg.conj()), fft::fft(base.conj()), "conjugate view");
  // Empty batches.
  const Tensor e = empty({0, 8}, TensorOptions(kComplex64));
  EXPECT_EQ(fft::fft(e.to(kCUDA)).sizes().vec(), fft::fft(e).sizes().vec());
  EXPECT_EQ(fft::rfft(empty({0, 8}, TensorOptions().device(kCUDA))).sizes().vec(), (std::vector<int64_t>{0, 5}));
  // Integer and half inputs are promoted by the op, as on the CPU.
  const Tensor ints = arange(10, TensorOptions(kInt64));
  expect_fft_matches(fft::rfft(ints.to(kCUDA)), fft::rfft(ints), "rfft of int64");
  const Tensor halfs = randn({64}).to(kFloat16);
  expect_fft_matches(fft::fft(halfs.to(kCUDA)), fft::fft(halfs), "fft of float16");
}

TEST_P(CudaTest, FftRunsOnTheCurrentStreamAndCachesPlans) {
  clear_fft_plan_cache();
  const Tensor x = complex_input({8, 256}, kComplex64, 6);
  const Tensor expected = fft::fft(x);
  {
    CUDAStreamGuard guard(stream_from_pool());
    const Tensor y = fft::fft(x.to(kCUDA));
    expect_fft_matches(y, expected, "fft on a pool stream");
  }
  EXPECT_EQ(fft_plan_cache_size(), 1);
  (void)fft::fft(x.to(kCUDA));  // the same plan
  EXPECT_EQ(fft_plan_cache_size(), 1);
  (void)fft::fft(x.to(kCUDA), 300);
  EXPECT_EQ(fft_plan_cache_size(), 2);
  set_fft_plan_cache_max_size(0);
  EXPECT_EQ(fft_plan_cache_size(), 0);
  expect_fft_matches(fft::fft(x.to(kCUDA)), expected, "fft without a cache");
  EXPECT_EQ(fft_plan_cache_size(), 0);
  set_fft_plan_cache_max_size(detail::kDefaultFFTPlanCacheMaxSize);
  clear_fft_plan_cache();
  EXPECT_EQ(fft_plan_cache_size(), 0);
}

TEST_P(CudaTest, LargeTransformsMatchTheCpu) {
  manual_seed(8);
  const Tensor x = randn({1 << 20});
  expect_fft_matches(fft::rfft(x.to(kCUDA)), fft::rfft(x), "rfft 2^20");
  const Tensor c = complex_input({512, 512}, kComplex64, 9);
  expect_fft_matches(fft::fft2(c.to(kCUDA)), fft::fft2(c), "fft2 512x512");
}

TEST_P(CudaTest, FftGradientsMatchTheCpu) {
  manual_seed(10);
  const Tensor x = randn({4, 12});
  auto grad_of = [](const Tensor& input) {
    Tensor leaf = input.detach().requires_grad_(true);
    const Tensor y = view_as_real(fft::rfft(leaf, std::nullopt, -1, "ortho"));
    (y * y).sum().backward();
    return leaf.grad();
  };
  expect_matches_cpu(grad_of(x.to(kCUDA)), grad_of(x), 1e-5, 1e-5, "rfft gradient");
}

}  // namespace
}  // namespace ember::cuda
