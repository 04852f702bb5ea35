// The CUDA scan and sort families against the CPU's kernels (themselves
// checked against PyTorch): cumsum/cumprod/logcumsumexp, cummax/cummin, sort,
// topk, kthvalue/median/nanmedian, mode, unique/unique_consecutive, over
// dtypes, dims, layouts, the chunked long-row and long-column paths, the
// two-pass sort of 64-bit keys, and edge values (NaN, infinities, ties, -0).
#include <algorithm>
#include <functional>
#include <limits>
#include <string>

#include "cuda/cuda_test.h"

// (Its own namespace: the test sources build as one unity file.)
namespace ember::cuda::scan_sort_tests {
namespace {

using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};
constexpr DType kSortableDTypes[] = {kBool,    kUInt8,   kInt8,    kInt16,   kInt32,   kInt64,
                                     kFloat16, kBFloat16, kFloat32, kFloat64};

std::string name_of(DType dt) { return std::string(dtype_name(dt)); }

// Values in [lo, hi] as dt (integral dtypes: integers of that range; bool: half true).
Tensor values(IntArrayRef sizes, DType dt, double lo, double hi) {
  Tensor u = rand(sizes, TensorOptions(kFloat64)) * (hi - lo) + lo;
  if (dt == kBool) return u.gt((lo + hi) / 2);
  if (!is_floating_point(dt)) return u.round().to(dt);
  return u.to(dt);
}

// Scan results agree with the CPU's to the rounding of the output dtype (both
// accumulate alike: double for float32, float for the 16-bit floats; only the
// order of the additions differs).
double scan_rtol(DType dt) {
  switch (dt) {
    case DType::Float16: return 2e-3;
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32: return 2e-6;
    case DType::Float64: return 1e-12;
    default: return 0;
  }
}

// Shapes and dims that reach every path of the scan engine (Note [CUDA scans]):
// short rows, block rows, chunked long rows, columns, chunked long columns.
struct ScanShape {
  std::vector<int64_t> sizes;
  int64_t dim;
};
const ScanShape kScanShapes[] = {
    {{1}, 0},          {{7}, 0},        {{3, 5}, 1},          {{3, 5}, 0},         {{2, 3, 4}, 1},
    {{1000, 37}, 1},   {{37, 1000}, 0}, {{3, 5000}, 1},       {{1, 300001}, 1},    {{300001, 2}, 0},
    {{5, 2049, 3}, 1}, {{4097}, 0},     {{2048, 20}, 1},      {{0, 4}, 1},
};

TEST_P(CudaTest, CumsumAndCumprodMatchTheCpu) {
  for (const ScanShape& s : kScanShapes) {
    for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kInt16, kInt8, kUInt8, kBool}) {
      const std::string what = name_of(dt) + " dim " + std::to_string(s.dim) + " of " + std::to_string(s.sizes[0]);
      const Tensor x = values(s.sizes, dt, -3, 3);
      const Tensor xg = x.to(kCUDA);
      // atol: sums of up to 3e5 values of size 3 pass through zero.
      const double atol = is_floating_point(dt) ? 1e-9 * static_cast<double>(x.numel()) : 0;
      expect_matches_cpu(cumsum(xg, s.dim, dt), cumsum(x, s.dim, dt), scan_rtol(dt),
                         dt == kFloat16 || dt == kBFloat16 ? 0.5 : atol, "cumsum " + what);
      // Products near 1 stay finite over long rows; integers wrap alike on both.
      const Tensor p = is_floating_point(dt) ? values(s.sizes, dt, 0.999, 1.001) : x;
      expect_matches_cpu(cumprod(p.to(kCUDA), s.dim, dt), cumprod(p, s.dim, dt), scan_rtol(dt), 1e-6,
                         "cumprod " + what);
    }
  }
}

TEST_P(CudaTest, ComplexCumsumAndCumprodMatchTheCpu) {
  const ScanShape shapes[] = {{{7}, 0}, {{3, 5}, 1}, {{1, 300001}, 1}, {{300001, 2}, 0}, {{5, 2049, 3}, 1}};
  for (const ScanShape& s : shapes) {
    for (DType dt : {kComplex64, kComplex128}) {
      const DType real = dt == kComplex64 ? kFloat32 : kFloat64;
      const double rtol = dt == kComplex64 ? 2e-6 : 1e-12;
      const std::string what = name_of(dt) + " dim " + std::to_string(s.dim) + " of " + std::to_string(s.sizes[0]);
      const Tensor x = complex(values(s.sizes, real, -3, 3), values(s.sizes, real, -3, 3));
      const Tensor xg = x.to(kCUDA);
      const double atol = 1e-9 * static_cast<double>(x.numel());
      expect_matches_cpu(cumsum(xg, s.dim), cumsum(x, s.dim), rtol, atol, "cumsum " + what);
      // A conjugate view: the op resolves the bit before the kernel.
      expect_matches_cpu(cumsum(xg.conj(), s.dim), cumsum(x.conj(), s.dim), rtol, atol, "cumsum conj " + what);
      // Factors of modulus near 1 keep long products finite.
      const Tensor p = polar(values(s.sizes, real, 0.999, 1.001), values(s.sizes, real, -3.1, 3.1));
      expect_matches_cpu(cumprod(p.to(kCUDA), s.dim), cumprod(p, s.dim), dt == kComplex64 ? 2e-6 : 1e-11, 1e-9,
                         "cumprod " + what);
    }
  }
}

TEST_P(CudaTest, ScansPromoteIntegersAndTakeStridedInputs) {
  const Tensor x = values({40, 30}, kInt8, -100, 100);
  expect_matches_cpu(cumsum(x.to(kCUDA), 1), cumsum(x, 1), 0, 0, "int8 -> int64");
  expect_matches_cpu(cumprod(x.to(kCUDA), 0), cumprod(x, 0), 0, 0, "int8 cumprod wraps in int64");
  const Tensor f = values({40, 30}, kFloat32, -1, 1);
  const Tensor fg = f.to(kCUDA);
  expect_matches_cpu(cumsum(fg.t(), 1), cumsum(f.t(), 1), 2e-6, 1e-6, "transposed");
  expect_matches_cpu(cumsum(fg.slice(1, 0, 30, 3), 0), cumsum(f.slice(1, 0, 30, 3), 0), 2e-6, 1e-6, "sliced");
  expect_matches_cpu(cumsum(fg, 0, kFloat64), cumsum(f, 0, kFloat64), 1e-12, 1e-12, "float32 into float64");
  // out= with a non-contiguous out.
  Tensor out = empty({30, 40}, TensorOptions(kFloat32).device(kCUDA)).t();
  cumsum_out(out, fg, 1);
  expect_matches_cpu(out, cumsum(f, 1), 2e-6, 1e-6, "out=");
  // 0-dim.
  const Tensor z = full({}, 2.5);
  expect_matches_cpu(cumsum(z.to(kCUDA), 0), cumsum(z, 0), 0, 0, "0-dim");
}

TEST_P(CudaTest, LogcumsumexpMatchesTheCpu) {
  for (const ScanShape& s : kScanShapes) {
    for (DType dt : kFloating) {
      const Tensor x = values(s.sizes, dt, -5, 5);
      const double rtol = dt == kFloat32 ? 2e-6 : scan_rtol(dt);
      expect_matches_cpu(logcumsumexp(x.to(kCUDA), s.dim), logcumsumexp(x, s.dim), rtol, 1e-6,
                         "logcumsumexp " + name_of(dt) + " of " + std::to_string(s.sizes[0]));
    }
  }
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (DType dt : kFloating) {
    const Tensor e = tensor({-inf, -inf, 0.0, inf, 1.0, inf, -inf}, dt);
    expect_matches_cpu(logcumsumexp(e.to(kCUDA), 0), logcumsumexp(e, 0), 1e-6, 1e-6, "infinities " + name_of(dt));
    const Tensor n = tensor({1.0, nan, 2.0, -inf, inf}, dt);
    expect_matches_cpu(logcumsumexp(n.to(kCUDA), 0), logcumsumexp(n, 0), 1e-6, 1e-6, "NaN " + name_of(dt));
  }
}

TEST_P(CudaTest, CummaxCumminMatchTheCpuWithTiesAndNaN) {
  for (const ScanShape& s : kScanShapes) {
    for (DType dt : kSortableDTypes) {
      // Few distinct values: many ties, whose indices move to the latest.
      Tensor x = values(s.sizes, dt, -3, 3);
      if (is_floating_point(dt)) x = x.round();
      if (is_floating_point(dt) && x.numel() > 10) x.view({-1}).slice(0, 5, 6).fill_(std::nan(""));
      const Tensor xg = x.to(kCUDA);
      const std::string what = name_of(dt) + " dim " + std::to_string(s.dim) + " of " + std::to_string(s.sizes[0]);
      for (bool is_max : {true, false}) {
        auto [v, i] = is_max ? cummax(xg, s.dim) : cummin(xg, s.dim);
        auto [cv, ci] = is_max ? cummax(x, s.dim) : cummin(x, s.dim);
        expect_matches_cpu(v, cv, 0, 0, (is_max ? "cummax values " : "cummin values ") + what);
        expect_matches_cpu(i, ci, 0, 0, (is_max ? "cummax indices " : "cummin indices ") + what);
      }
    }
  }
}

// ---- sorting ----

// Sort inputs with ties, NaN of both signs, infinities and -0 (CPU and GPU
// keep -0 and 0 in input order alike).
Tensor sort_input(IntArrayRef sizes, DType dt) {
  Tensor x = values(sizes, dt, -20, 20);
  if (is_floating_point(dt)) x = x.round();  // ties, whose order the indices show
  if (is_floating_point(dt) && x.numel() >= 8) {
    Tensor flat = x.view({-1});
    const double inf = std::numeric_limits<double>::infinity();
    flat.slice(0, 0, 1).fill_(std::nan(""));
    flat.slice(0, 1, 2).fill_(-std::nan(""));
    flat.slice(0, 2, 3).fill_(inf);
    flat.slice(0, 3, 4).fill_(-inf);
    flat.slice(0, 4, 5).fill_(-0.0);
    flat.slice(0, 5, 6).fill_(0.0);
    flat.slice(0, flat.numel() - 1, flat.numel()).fill_(std::nan(""));
  }
  return x;
}

struct SortShape {
  std::vector<int64_t> sizes;
  int64_t dim;
};
// Single rows (32-bit and 64-bit keys), rows with the row number in the key,
// 64-bit dtypes in several rows (the two-pass sort), dims not last.
const SortShape kSortShapes[] = {
    {{1}, 0},       {{9}, 0},          {{5, 8}, 1},        {{5, 8}, 0},      {{3, 4, 5}, 1},
    {{300, 1000}, 1}, {{4096, 33}, 1}, {{1 << 18}, 0},     {{33, 7, 2}, 0},  {{0, 3}, 1},
};

void expect_pair_matches(const std::pair<Tensor, Tensor>& gpu, const std::pair<Tensor, Tensor>& cpu,
                         const std::string& what) {
  expect_matches_cpu(gpu.first, cpu.first, 0, 0, what + " values");
  expect_matches_cpu(gpu.second, cpu.second, 0, 0, what + " indices");
}

TEST_P(CudaTest, SortMatchesTheCpuExactly) {
  for (const SortShape& s : kSortShapes) {
    for (DType dt : kSortableDTypes) {
      const Tensor x = sort_input(s.sizes, dt);
      const Tensor xg = x.to(kCUDA);
      for (bool descending : {false, true}) {
        const std::string what = "sort " + name_of(dt) + (descending ? " descending" : "") + " dim " +
                                  std::to_string(s.dim) + " of " + std::to_string(s.sizes[0]);
        expect_pair_matches(sort(xg, s.dim, descending, true), sort(x, s.dim, descending, true), what);
      }
    }
  }
  // Strided input and a 0-dim one.
  const Tensor m = sort_input({20, 30}, kFloat32);
  expect_pair_matches(sort(m.to(kCUDA).t(), 1), sort(m.t(), 1), "transposed");
  const Tensor z = full({}, 3.0);
  expect_pair_matches(sort(z.to(kCUDA), 0), sort(z, 0), "0-dim");
}

TEST_P(CudaTest, SortIsDeterministic) {
  const Tensor x = values({64, 4096}, kFloat32, -2, 2).to(kCUDA);
  auto [a, ai] = sort(x, 1);
  auto [b, bi] = sort(x, 1);
  EXPECT_TRUE(equal(a.cpu(), b.cpu()));
  EXPECT_TRUE(equal(ai.cpu(), bi.cpu()));
  // Bit for bit, run to run (Note [CUDA scans]: no atomics, a fixed order).
  const Tensor c = cumsum(x, 1), d = cumsum(x, 1);
  EXPECT_TRUE(equal(c.cpu(), d.cpu()));
  const Tensor row = x.view({-1});
  EXPECT_TRUE(equal(cumsum(row, 0).cpu(), cumsum(row, 0).cpu()));
}

TEST_P(CudaTest, TopkMatchesTheCpu) {
  for (const SortShape& s : kSortShapes) {
    if (s.sizes[0] == 0) continue;
    for (DType dt : kSortableDTypes) {
      const Tensor x = sort_input(s.sizes, dt);
      const Tensor xg = x.to(kCUDA);
      const int64_t n = s.sizes[s.dim];
      for (int64_t k : {int64_t{0}, int64_t{1}, std::min<int64_t>(5, n), n}) {
        for (bool largest : {true, false}) {
          const std::string what = "topk " + name_of(dt) + " k " + std::to_string(k) + (largest ? " largest" : " smallest") +
                                    " of " + std::to_string(s.sizes[0]);
          expect_pair_matches(topk(xg, k, s.dim, largest, true), topk(x, k, s.dim, largest, true), what);
          // sorted=false allows any order; the CUDA kernel gives the sorted one.
          expect_pair_matches(topk(xg, k, s.dim, largest, false), topk(x, k, s.dim, largest, true), what + " unsorted");
        }
      }
    }
  }
}

TEST_P(CudaTest, KthvalueMedianNanmedianMatchTheCpu) {
  for (const SortShape& s : kSortShapes) {
    if (s.sizes[0] == 0) continue;
    for (DType dt : kSortableDTypes) {
      const Tensor x = sort_input(s.sizes, dt);
      const Tensor xg = x.to(kCUDA);
      const int64_t n = s.sizes[s.dim];
      const std::string what = name_of(dt) + " dim " + std::to_string(s.dim) + " of " + std::to_string(s.sizes[0]);
      for (int64_t k : {int64_t{1}, (n + 1) / 2, n})
        expect_pair_matches(kthvalue(xg, k, s.dim, true), kthvalue(x, k, s.dim, true), "kthvalue " + what);
      expect_pair_matches(median(xg, s.dim), median(x, s.dim), "median " + what);
      expect_pair_matches(nanmedian(xg, s.dim), nanmedian(x, s.dim), "nanmedian " + what);
      expect_matches_cpu(median(xg), median(x), 0, 0, "median() " + what);
      expect_matches_cpu(nanmedian(xg), nanmedian(x), 0, 0, "nanmedian() " + what);
    }
  }
  // Rows that are all NaN, rows without NaN, mixed.
  const double nan = std::nan("");
  const Tensor e = tensor({{nan, nan, nan}, {1.0, 2.0, 3.0}, {3.0, nan, 1.0}}, kFloat32);
  expect_pair_matches(nanmedian(e.to(kCUDA), 1), nanmedian(e, 1), "nanmedian NaN rows");
  expect_pair_matches(median(e.to(kCUDA), 1), median(e, 1), "median NaN rows");
}

TEST_P(CudaTest, ModeMatchesTheCpu) {
  for (const SortShape& s : kSortShapes) {
    if (s.sizes[0] == 0) continue;
    for (DType dt : kSortableDTypes) {
      const Tensor x = sort_input(s.sizes, dt);
      expect_pair_matches(mode(x.to(kCUDA), s.dim), mode(x, s.dim),
                          "mode " + name_of(dt) + " dim " + std::to_string(s.dim) + " of " + std::to_string(s.sizes[0]));
    }
  }
  // Equal run lengths: the smallest value wins, with its last index.
  const Tensor t = tensor({{2, 1, 2, 1, 3}, {5, 5, 4, 4, 4}}, kInt64);
  expect_pair_matches(mode(t.to(kCUDA), 1), mode(t, 1), "mode ties");
}

void expect_unique_matches(const Tensor& x, bool consecutive, const std::string& what) {
  for (bool inverse : {false, true}) {
    for (bool counts : {false, true}) {
      auto [u, i, c] = consecutive ? unique_consecutive(x.to(kCUDA), inverse, counts) : unique(x.to(kCUDA), true, inverse, counts);
      auto [cu, ci, cc] = consecutive ? unique_consecutive(x, inverse, counts) : unique(x, true, inverse, counts);
      expect_matches_cpu(u, cu, 0, 0, what + " values");
      expect_matches_cpu(i, ci, 0, 0, what + " inverse");
      expect_matches_cpu(c, cc, 0, 0, what + " counts");
    }
  }
}

TEST_P(CudaTest, UniqueMatchesTheCpu) {
  for (DType dt : kSortableDTypes) {
    for (const std::vector<int64_t>& sizes : std::vector<std::vector<int64_t>>{{0}, {1}, {50}, {7, 9}, {100000}}) {
      // Unique of a float with -0 and 0 may keep either (the CPU's sort is
      // not stable): inputs here hold no -0.
      Tensor x = values(sizes, dt, -10, 10);
      if (is_floating_point(dt)) x = x.round().masked_fill(eq(x.round(), 0), 1.0);
      if (is_floating_point(dt) && x.numel() > 10) {
        x.view({-1}).slice(0, 3, 4).fill_(std::nan(""));
        x.view({-1}).slice(0, 8, 9).fill_(std::nan(""));
      }
      const std::string what = name_of(dt) + " of " + std::to_string(x.numel());
      expect_unique_matches(x, false, "unique " + what);
      expect_unique_matches(x.sort(-1).first.contiguous(), true, "unique_consecutive sorted " + what);
      expect_unique_matches(x, true, "unique_consecutive " + what);
    }
  }
  // A strided input.
  const Tensor m = values({30, 20}, kInt32, 0, 5);
  expect_unique_matches(m.t(), false, "unique transposed");
}

TEST_P(CudaTest, ScanAndSortKernelsCoverTheCpusDTypes) {
  const std::vector<std::string> missing = missing_kernels(DeviceType::CUDA);
  auto starts_with = [&](const std::string& prefix) {
    return std::any_of(missing.begin(), missing.end(), [&](const std::string& m) { return m.rfind(prefix, 0) == 0; });
  };
  for (const char* slot : {"scan", "cum_min_max", "sort", "topk", "select", "mode", "unique"})
    EXPECT_FALSE(starts_with(slot)) << slot;
}

}  // namespace
}  // namespace ember::cuda::scan_sort_tests
