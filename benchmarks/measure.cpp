#include "measure.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>

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
  // A ceiling is checked against the in-process peer: none without one.
  const Ceiling* ceiling = c.ceiling && c.peer ? &*c.ceiling : nullptr;
  try {
    if (!c.peer) {  // external peers only: their results are checked later
      c.ember();
    } else {
      const PeerTensor peer_result = c.peer();
      m.mismatch = compare(c.ember(), peer_result, c.rtol, c.atol);
      if (ceiling) {
        ceiling->run();
        if (ceiling->result) m.ceiling_mismatch = compare(ceiling->result(), peer_result, c.rtol, c.atol);
      }
    }
    for (int i = 1; i < o.warmup; ++i) {
      c.ember();
      if (c.peer) c.peer();
      if (ceiling) ceiling->run();
    }
  } catch (const std::exception& e) {
    m.error = e.what();
    return m;
  }
  // The sides, timed in turn; the result is destroyed inside the timed region,
  // as in a user's loop.
  std::vector<std::function<void()>> sides = {[&] { c.ember(); }};
  if (c.peer) sides.push_back([&] { c.peer(); });
  if (ceiling) sides.push_back(ceiling->run);
  std::vector<std::vector<double>> times(sides.size());
  for (int i = 0;; ++i) {
    // Rotate the order too, so no side always runs on a cache another warmed.
    for (size_t k = 0; k < sides.size(); ++k) {
      const size_t s = (k + static_cast<size_t>(i)) % sides.size();
      times[s].push_back(seconds(sides[s]));
    }
    const int n = i + 1;
    double slower = 0, faster = 1e300;
    for (const auto& t : times) {
      slower = std::max(slower, sum(t));
      faster = std::min(faster, sum(t));
    }
    if (n >= o.max_reps) break;
    if (n >= o.min_reps && faster >= o.target_s) break;
    if (n >= 3 && slower >= o.max_s) break;
  }
  m.ember_s = median(times[0]);
  m.ember_min_s = *std::min_element(times[0].begin(), times[0].end());
  if (c.peer) {
    m.peer_s = median(times[1]);
    m.peer_min_s = *std::min_element(times[1].begin(), times[1].end());
  }
  if (ceiling) {
    m.ceiling_s = median(times[2]);
    m.ceiling_min_s = *std::min_element(times[2].begin(), times[2].end());
  }
  m.reps = static_cast<int>(times[0].size());
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

std::string cpu_description() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU", flags;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || colon + 2 > line.size()) continue;
    if (line.rfind("model name", 0) == 0 && model == "unknown CPU") model = line.substr(colon + 2);
    if (line.rfind("flags", 0) == 0 && flags.empty()) flags = line.substr(colon + 1) + " ";  // " flag flag ... "
  }
  const char* isa = flags.find(" avx512f ") != std::string::npos ? "AVX-512"
                    : flags.find(" avx2 ") != std::string::npos  ? "AVX2"
                                                                  : "no AVX2";
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " cores, " + isa;
}

}  // namespace ember_bench
