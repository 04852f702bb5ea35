#include "measure.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

namespace ember_bench {

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

}  // namespace

Measurement measure(const Case& c, const TimingOptions& o) {
  Measurement m;
  try {
    m.mismatch = compare(c.ember(), c.peer(), c.rtol, c.atol);
    for (int i = 1; i < o.warmup; ++i) {
      c.ember();
      c.peer();
    }
  } catch (const std::exception& e) {
    m.error = e.what();
    return m;
  }
  // The result is destroyed inside the timed region, as in a user's loop.
  auto run_ember = [&] { return seconds([&] { c.ember(); }); };
  auto run_peer = [&] { return seconds([&] { c.peer(); }); };
  std::vector<double> te, tp;
  for (int i = 0;; ++i) {
    // Alternate the order too, so neither side always runs on a cache the other warmed.
    if (i % 2 == 0) {
      te.push_back(run_ember());
      tp.push_back(run_peer());
    } else {
      tp.push_back(run_peer());
      te.push_back(run_ember());
    }
    const int n = i + 1;
    const double slower = std::max(sum(te), sum(tp)), faster = std::min(sum(te), sum(tp));
    if (n >= o.max_reps) break;
    if (n >= o.min_reps && faster >= o.target_s) break;
    if (n >= 3 && slower >= o.max_s) break;
  }
  m.ember_s = median(te);
  m.peer_s = median(tp);
  m.ember_min_s = *std::min_element(te.begin(), te.end());
  m.peer_min_s = *std::min_element(tp.begin(), tp.end());
  m.reps = static_cast<int>(te.size());
  return m;
}

// A loop GCC would otherwise turn into a memcpy call.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
static void copy_floats(float* __restrict dst, const float* __restrict src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}

CopyBandwidth measure_copy_bandwidth(size_t bytes, int threads) {
  const size_t n = bytes / sizeof(float);
  std::unique_ptr<float[]> src(new float[n]), dst(new float[n]);
  // First touch by the threads that will stream the pages.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < n; ++i) {
    src[i] = static_cast<float>(i & 1023);
    dst[i] = 0.f;
  }
  auto best_of = [&](auto&& copy_chunk) {
    // Best of many passes spread over ~1 s: a short burst of load from other
    // processes then spoils only some of them.
    double best = 1e30, total = 0;
    for (int pass = 0; pass < 6 || (total < 1.0 && pass < 200); ++pass) {
      const double t = seconds([&] {
#pragma omp parallel num_threads(threads)
        {
          const size_t nt = static_cast<size_t>(omp_get_num_threads());
          const size_t t = static_cast<size_t>(omp_get_thread_num());
          const size_t begin = n * t / nt, end = n * (t + 1) / nt;
          copy_chunk(dst.get() + begin, src.get() + begin, end - begin);
        }
      });
      best = std::min(best, t);
      total += t;
    }
    return 2.0 * static_cast<double>(n * sizeof(float)) / best / 1e9;
  };
  CopyBandwidth bw;
  bw.copy_gbs = best_of(copy_floats);
  bw.memcpy_gbs = best_of([](float* d, const float* s, size_t k) { std::memcpy(d, s, k * sizeof(float)); });
  return bw;
}

}  // namespace ember_bench
