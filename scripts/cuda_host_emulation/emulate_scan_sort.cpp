// Host emulation of the CUDA scan engine (scan.cuh) and the sort family's
// kernels (sort_radix.cu, sort.cu, select_mode.cu, unique.cu), run by run.sh:
// the kernels' own text (extracted.inc, from extract.py) compiled as C++, a
// block's threads as std::threads meeting at a barrier for __syncthreads,
// blocks one after another, CUB's radix sort replaced by a stable sort on the
// same key bits, and the host planning of run_scan copied below. Results are
// checked against the CPU kernels' algorithms (kernels/cpu/scan_kernels.cpp,
// sort_kernels.cpp), written out here in float64 or as the CPU does them.
// Only a check of the kernels' logic: no GPU memory model, no CUB.
#include <math.h>
#include <algorithm>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>
#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __shared__ static
struct dim3 { unsigned x = 1, y = 1, z = 1; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<>* g_barrier = nullptr;
void __syncthreads() { g_barrier->arrive_and_wait(); }
struct __half { unsigned short b; };
struct __nv_bfloat16 { unsigned short b; };
inline unsigned short __half_as_ushort(__half h) { return h.b; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.b; }
inline unsigned __float_as_uint(float f) { return std::bit_cast<unsigned>(f); }
inline long long __double_as_longlong(double d) { return std::bit_cast<long long>(d); }
#include "math.cuh"
namespace ember::cuda::kernels {
template <class R> struct Complex { R re, im; };
template <class T> struct compute_type { using type = T; };
template <class T> using compute_t = typename compute_type<T>::type;
template <class To, class From> To convert(From v) { if constexpr (std::is_same_v<To, bool>) return v != From(0); else return static_cast<To>(v); }
template <class T> inline constexpr bool is_float_v = std::is_floating_point_v<T>;
template <size_t Bytes> struct bits_of;
template <> struct bits_of<1> { using type = uint8_t; };
template <> struct bits_of<2> { using type = uint16_t; };
template <> struct bits_of<4> { using type = uint32_t; };
template <> struct bits_of<8> { using type = uint64_t; };
enum class SelectOp { Kth, Median, NanMedian };
inline constexpr int kSortThreads = 256;

template <class F>
void emulate(dim3 grid, unsigned threads, bool sync, F f) {
  gridDim = grid; blockDim = dim3(threads);
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      if (!sync) {
        blockIdx = dim3(bx, by);
        for (unsigned t = 0; t < threads; ++t) { threadIdx = dim3(t); f(); }
        continue;
      }
      std::barrier<> bar(threads);
      g_barrier = &bar;
      std::vector<std::thread> ts;
      for (unsigned t = 0; t < threads; ++t)
        ts.emplace_back([&, t, bx, by] { blockIdx = dim3(bx, by); threadIdx = dim3(t); f(); });
      for (auto& th : ts) th.join();
    }
}
#include "extracted.inc"

// run_scan's host planning, copied from scan.cuh (keep the two alike), launches emulated.
template <class Ops>
void run_scan_host(const Ops& ops, int64_t outer, int64_t n, int64_t inner, int* path) {
  using Acc = typename Ops::acc_t;
  if (inner == 1 && n > kShortRow) {
    const int64_t tiles = (n + kScanTile - 1) / kScanTile;
    int64_t chunks = 1;
    if (outer < 1024 && tiles > 1) chunks = std::min(tiles, (int64_t{2048} + outer - 1) / outer);
    const int64_t chunk = (tiles + chunks - 1) / chunks * kScanTile;
    chunks = (n + chunk - 1) / chunk;
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(outer * chunks, int64_t{1} << 20));
    if (chunks == 1) {
      *path = 1;
      emulate(dim3(grid), kScanThreads, true, [&] { scan_rows_kernel<Ops, ScanMode::Store>(ops, outer, n, chunk, 1, nullptr); });
      return;
    }
    *path = 2;
    std::vector<Acc> buf(outer * chunks);
    Acc* totals = buf.data();
    emulate(dim3(grid), kScanThreads, true, [&] { scan_rows_kernel<Ops, ScanMode::Total>(ops, outer, n, chunk, chunks, totals); });
    emulate(dim3((outer + 255) / 256), kScanThreads, false, [&] { scan_totals_kernel<Ops>(ops, outer, chunks, totals); });
    emulate(dim3(grid), kScanThreads, true, [&] { scan_rows_kernel<Ops, ScanMode::Store>(ops, outer, n, chunk, chunks, totals); });
    return;
  }
  const int64_t lanes = outer * inner;
  int64_t chunks = 1;
  if (lanes < 65536) chunks = std::min({(int64_t{65536} + lanes - 1) / lanes, (n + 63) / 64, int64_t{65535}});
  chunks = std::max<int64_t>(chunks, 1);
  const int64_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  const dim3 grid((lanes + 255) / 256, static_cast<unsigned>(chunks));
  if (chunks == 1) {
    *path = 3;
    emulate(grid, kScanThreads, false, [&] { scan_columns_kernel<Ops, ScanMode::Store>(ops, lanes, n, inner, chunk, 1, nullptr); });
    return;
  }
  *path = 4;
  std::vector<Acc> buf(lanes * chunks);
  Acc* totals = buf.data();
  emulate(grid, kScanThreads, false, [&] { scan_columns_kernel<Ops, ScanMode::Total>(ops, lanes, n, inner, chunk, chunks, totals); });
  emulate(dim3((lanes + 255) / 256), kScanThreads, false, [&] { scan_totals_kernel<Ops>(ops, lanes, chunks, totals); });
  emulate(grid, kScanThreads, false, [&] { scan_columns_kernel<Ops, ScanMode::Store>(ops, lanes, n, inner, chunk, chunks, totals); });
}
}  // namespace ember::cuda::kernels
using namespace ember::cuda::kernels;

int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { if (failures++ < 20) { std::printf("FAIL %s:%d ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } } while (0)

void test_scans(int64_t outer, int64_t n, int64_t inner) {
  std::mt19937 rng(outer * 7 + n * 13 + inner);
  const int64_t total = outer * n * inner;
  std::vector<float> x(total);
  std::vector<int64_t> xi(total);
  for (int64_t i = 0; i < total; ++i) { x[i] = (i % 2) ? std::uniform_real_distribution<float>(-3, 3)(rng) : float(int(rng() % 7) - 3); xi[i] = rng() % 7 - 3; }
  if (total > 10) { x[5] = NAN; }
  std::vector<float> y(total);
  int path = 0;
  run_scan_host(SumProdOps<float, false>{x.data(), y.data()}, outer, n, inner, &path);
  std::vector<int64_t> yi(total);
  run_scan_host(SumProdOps<int64_t, true>{xi.data(), yi.data()}, outer, n, inner, &path);
  std::vector<float> ym(total); std::vector<int64_t> im(total);
  run_scan_host(CumMinMaxOps<float>{x.data(), ym.data(), im.data(), true}, outer, n, inner, &path);
  std::vector<float> yl(total);
  run_scan_host(LogSumExpOps<float>{x.data(), yl.data()}, outer, n, inner, &path);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      double acc = 0; int64_t p = 1; float best = 0; int64_t where = 0; double lse = -INFINITY;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t off = (o * n + i) * inner + j;
        acc += x[off];
        p = static_cast<int64_t>(static_cast<uint64_t>(p) * static_cast<uint64_t>(xi[off]));
        const float v = x[off];
        if (i == 0 || std::isnan(v) || (!std::isnan(best) && v >= best)) { best = v; where = i; }
        { double xx = v; double lo = std::isnan(lse) ? lse : std::min(xx, lse), hi = std::isnan(lse) ? lse : std::max(xx, lse);
          lse = (lo != hi || std::isfinite(lo)) ? hi + std::log1p(std::exp(lo - hi)) : xx; }
        const bool sum_ok = (std::isnan(acc) && std::isnan(y[off])) || std::abs(y[off] - acc) <= 1e-5 * (1 + std::abs(acc));
        CHECK(sum_ok, "cumsum path %d [%ld,%ld,%ld] at %ld,%ld,%ld: %g vs %g", path, outer, n, inner, o, i, j, y[off], acc);
        CHECK(yi[off] == p, "cumprod int path %d at %ld,%ld,%ld", path, o, i, j);
        CHECK(im[off] == where && ((std::isnan(best) && std::isnan(ym[off])) || ym[off] == best), "cummax path %d [%ld,%ld,%ld] at %ld,%ld,%ld: %g@%ld vs %g@%ld", path, outer, n, inner, o, i, j, ym[off], im[off], best, where);
        const bool lse_ok = (std::isnan(lse) && std::isnan(yl[off])) || std::abs(yl[off] - lse) <= 1e-5 * (1 + std::abs(lse));
        CHECK(lse_ok, "lse path %d at %ld,%ld,%ld: %g vs %g", path, o, i, j, yl[off], lse);
      }
    }
  std::printf("scan [%ld, %ld, %ld] path %d done\n", outer, n, inner, path);
}

// CUB emulated: stable sort of pairs by key bits [0, end_bit).
template <class K>
void radix_emulate(std::vector<K>& keys, std::vector<int64_t>& pos, int end_bit) {
  std::vector<size_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0);
  const uint64_t mask = end_bit >= 64 ? ~0ull : (1ull << end_bit) - 1;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return (uint64_t(keys[a]) & mask) < (uint64_t(keys[b]) & mask); });
  std::vector<K> k2(keys.size()); std::vector<int64_t> p2(keys.size());
  for (size_t i = 0; i < idx.size(); ++i) { k2[i] = keys[idx[i]]; p2[i] = pos[idx[i]]; }
  keys = k2; pos = p2;
}

template <class T>
std::vector<int64_t> sorted_positions_host(const std::vector<T>& x, int64_t rows, int64_t n, bool desc) {
  const int64_t total = rows * n;
  const int row_bits = rows > 1 ? 64 - __builtin_clzll(uint64_t(rows - 1)) : 0;
  constexpr int kb = key_bits_v<T>;
  auto one = [&](auto ktag, int rb) {
    using K = decltype(ktag);
    std::vector<K> keys(total); std::vector<int64_t> pos(total);
    gridDim = dim3(1); blockDim = dim3(1); blockIdx = dim3(0); threadIdx = dim3(0);
    make_keys_kernel<T, K>(x.data(), total, n, rb, desc, keys.data(), pos.data());
    radix_emulate(keys, pos, kb + rb);
    return pos;
  };
  if (kb + row_bits <= 32) return one(uint32_t{}, row_bits);
  if (kb + row_bits <= 64) return one(uint64_t{}, row_bits);
  std::vector<int64_t> pos = one(uint64_t{}, 0);
  std::vector<uint32_t> keys(total);
  row_keys_kernel<uint32_t>(pos.data(), total, n, keys.data());
  radix_emulate(keys, pos, row_bits);
  return pos;
}

// mode as select_mode.cu's LaunchMode runs it, cumsum and argmax done here.
template <class T>
std::vector<int64_t> mode_all_rows(const std::vector<T>& x, const std::vector<int64_t>& pos, int64_t rows, int64_t n) {
  const int64_t total = rows * n;
  std::vector<int64_t> starts(total), run_ids(total), first(total, 0), last(total, -1), best(rows);
  gridDim = dim3(1); blockDim = dim3(1); blockIdx = dim3(0); threadIdx = dim3(0);
  mode_run_starts_kernel<T>(x.data(), pos.data(), total, n, starts.data());
  std::partial_sum(starts.begin(), starts.end(), run_ids.begin());
  mode_run_bounds_kernel(run_ids.data(), total, n, first.data(), last.data());
  for (int64_t r = 0; r < rows; ++r) {
    int64_t b = 0;
    for (int64_t k = 1; k < n; ++k)
      if (last[r * n + k] - first[r * n + k] > last[r * n + b] - first[r * n + b]) b = k;
    best[r] = b;
  }
  std::vector<T> values(rows);
  std::vector<int64_t> indices(rows);
  blockDim = dim3(256);
  for (int64_t r = 0; r < rows; ++r) {
    blockIdx = dim3(r / 256);
    threadIdx = dim3(r % 256);
    mode_pick_kernel<T>(x.data(), pos.data(), last.data(), best.data(), rows, n, values.data(), indices.data());
  }
  return indices;
}

template <class T>
void test_sort(int64_t rows, int64_t n, bool desc, bool special) {
  std::mt19937 rng(rows * 31 + n);
  std::vector<T> x(rows * n);
  for (auto& v : x) v = static_cast<T>(static_cast<int>(rng() % 41) - 20);
  if constexpr (std::is_floating_point_v<T>) if (special && x.size() >= 8) {
    x[0] = NAN; x[1] = -NAN; x[2] = INFINITY; x[3] = -INFINITY; x[4] = -0.0; x[5] = 0.0; x.back() = NAN;
  }
  auto pos = sorted_positions_host(x, rows, n, desc);
  std::vector<T> vals(rows * n); std::vector<int64_t> idx(rows * n);
  gridDim = dim3(1); blockDim = dim3(1); blockIdx = dim3(0); threadIdx = dim3(0);
  gather_sorted_kernel<T>(x.data(), pos.data(), rows, n, n, vals.data(), idx.data());
  std::vector<int64_t> mode_index = mode_all_rows(x, pos, rows, n);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<std::pair<T, int64_t>> buf(n);
    for (int64_t i = 0; i < n; ++i) buf[i] = {x[r * n + i], i};
    auto isn = [](T v) { if constexpr (std::is_floating_point_v<T>) return std::isnan(v); else return false; };
    if (desc) std::stable_sort(buf.begin(), buf.end(), [&](auto& a, auto& b) { return (isn(a.first) && !isn(b.first)) || a.first > b.first; });
    else std::stable_sort(buf.begin(), buf.end(), [&](auto& a, auto& b) { return (!isn(a.first) && isn(b.first)) || a.first < b.first; });
    for (int64_t i = 0; i < n; ++i) {
      const bool same = std::memcmp(&vals[r * n + i], &buf[i].first, sizeof(T)) == 0;
      CHECK(idx[r * n + i] == buf[i].second && same, "sort rows %ld n %ld desc %d at %ld,%ld: idx %ld vs %ld", rows, n, desc, r, i, idx[r * n + i], buf[i].second);
    }
    // select & mode on ascending sorts
    if (!desc) {
      T v; int64_t ix;
      for (SelectOp op : {SelectOp::Kth, SelectOp::Median, SelectOp::NanMedian}) {
        const int64_t k = n / 3;
        gridDim = dim3(1); blockDim = dim3(1); blockIdx = dim3(0); threadIdx = dim3(0);
        // run the kernel for row r only: shift pointers
        std::vector<int64_t> prow(pos.begin() + r * n, pos.begin() + (r + 1) * n);
        for (auto& p : prow) p -= r * n;
        select_kernel<T>(x.data() + r * n, prow.data(), 1, n, op, k, &v, &ix);
        // reference as the CPU
        int64_t nans = 0, first_nan = -1;
        for (int64_t i = 0; i < n; ++i) if (isn(x[r * n + i])) { ++nans; if (first_nan < 0) first_nan = i; }
        int64_t want;
        if (op == SelectOp::Kth) want = buf[k].second;
        else {
          const int64_t valid = n - (op == SelectOp::NanMedian ? nans : 0);
          if ((op == SelectOp::Median && nans > 0) || valid == 0) want = first_nan;
          else want = buf[(valid - 1) / 2].second;
        }
        CHECK(ix == want, "select op %d rows %ld n %ld row %ld: %ld vs %ld", int(op), rows, n, r, ix, want);
      }
      ix = mode_index[r];
      size_t best = 0, best_len = 0, run = 0;
      for (size_t i = 0; i < buf.size(); ++i) { ++run; if (i + 1 == buf.size() || !(buf[i].first == buf[i + 1].first)) { if (run > best_len) { best = i; best_len = run; } run = 0; } }
      CHECK(ix == buf[best].second, "mode rows %ld n %ld row %ld: %ld vs %ld", rows, n, r, ix, buf[best].second);
    }
  }
  std::printf("sort %s rows %ld n %ld desc %d done\n", sizeof(T) == 8 ? "64-bit" : "32-bit", rows, n, desc);
}

void test_unique(int64_t n, bool consecutive) {
  std::mt19937 rng(n);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
  if (n > 10) { x[3] = NAN; x[8] = NAN; }
  std::vector<int64_t> order;
  if (!consecutive) order = sorted_positions_host(x, 1, n, false);
  std::vector<int64_t> starts(n), slots(n);
  gridDim = dim3(1); blockDim = dim3(1); blockIdx = dim3(0); threadIdx = dim3(0);
  run_starts_kernel<float>(x.data(), consecutive ? nullptr : order.data(), n, starts.data());
  std::partial_sum(starts.begin(), starts.end(), slots.begin());
  const int64_t u = slots[n - 1];
  std::vector<float> vals(u); std::vector<int64_t> first(u), inv(n), counts(u);
  scatter_unique_kernel<float>(x.data(), consecutive ? nullptr : order.data(), n, slots.data(), vals.data(), first.data(), inv.data());
  counts_kernel(first.data(), u, n, counts.data());
  // reference (the CPU's algorithms)
  std::vector<float> rv; std::vector<int64_t> rc, ri(n);
  if (consecutive) {
    for (int64_t i = 0; i < n; ++i) { if (rv.empty() || !(rv.back() == x[i])) { rv.push_back(x[i]); rc.push_back(0); } ++rc.back(); ri[i] = rv.size() - 1; }
  } else {
    std::vector<float> s(x);
    auto nb = std::partition(s.begin(), s.end(), [](float v) { return !std::isnan(v); });
    std::sort(s.begin(), nb);
    for (auto it = s.begin(); it != nb; ++it) { if (rv.empty() || !(rv.back() == *it)) { rv.push_back(*it); rc.push_back(0); } ++rc.back(); }
    const int64_t finite = rv.size();
    for (auto it = nb; it != s.end(); ++it) { rv.push_back(*it); rc.push_back(1); }
    int64_t next = finite;
    for (int64_t i = 0; i < n; ++i) ri[i] = std::isnan(x[i]) ? next++ : std::lower_bound(rv.begin(), rv.begin() + finite, x[i]) - rv.begin();
  }
  CHECK(int64_t(rv.size()) == u, "unique count %ld vs %zu", u, rv.size());
  for (int64_t j = 0; j < std::min<int64_t>(u, rv.size()); ++j)
    CHECK(((std::isnan(rv[j]) && std::isnan(vals[j])) || rv[j] == vals[j]) && rc[j] == counts[j], "unique %d n %ld slot %ld", consecutive, n, j);
  for (int64_t i = 0; i < n; ++i) CHECK(ri[i] == inv[i], "unique inverse %d n %ld at %ld: %ld vs %ld", consecutive, n, i, inv[i], ri[i]);
  std::printf("unique n %ld consecutive %d done\n", n, consecutive);
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  // A part (scan, sort, unique) to run alone; all by default.
  const std::string only = argc > 1 ? argv[1] : "";
  if (only.empty() || only == "scan") {
    test_scans(1, 7, 1);
    test_scans(3, 5, 1);
    test_scans(5, 3, 1);
    test_scans(2, 3, 4);
    test_scans(3, 100, 1);
    test_scans(3, 5000, 1);
    test_scans(1, 40001, 1);
    test_scans(1, 4097, 1);
    test_scans(1, 20001, 2);
    test_scans(5, 2049, 3);
    test_scans(4, 37, 1);
  }
  if (only.empty() || only == "sort")
    for (bool d : {false, true}) {
      test_sort<float>(1, 1, d, true);
      test_sort<float>(1, 100, d, true);
      test_sort<float>(7, 50, d, true);
      test_sort<double>(7, 50, d, true);
      test_sort<double>(1, 50, d, true);
      test_sort<int64_t>(9, 20, d, false);
      test_sort<int8_t>(9, 20, d, false);
      test_sort<uint8_t>(9, 20, d, false);
      test_sort<int32_t>(3000, 5, d, false);
    }
  if (only.empty() || only == "unique")
    for (bool c : {false, true}) { test_unique(1, c); test_unique(50, c); test_unique(1000, c); }
  std::printf("%d failures\n", failures);
  return failures != 0;
}
