// Note [Polyphase resampling] and Note [Resampling tap trimming] (polyphase.h).
#include "polyphase.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <ember/core/parallel.h>

namespace ember::audio::functional::detail {
namespace {

template <class T>
void fill_plan(const T* kernel, int64_t next, int64_t taps, PolyphasePlan& plan, std::vector<T>& coeff) {
  const double budget = std::ldexp(std::numeric_limits<T>::epsilon(), -10);
  plan.phase_begin.assign(1, 0);
  for (int64_t p = 0; p < next; ++p) {
    const T* row = kernel + p * taps;
    double l1 = 0;
    for (int64_t k = 0; k < taps; ++k) l1 += std::fabs(double(row[k]));
    const double allowed = budget * l1 / 2;  // for each end
    int64_t lo = 0, hi = taps;
    for (double skipped = 0; lo < hi && skipped + std::fabs(double(row[lo])) <= allowed; ++lo)
      skipped += std::fabs(double(row[lo]));
    for (double skipped = 0; hi > lo && skipped + std::fabs(double(row[hi - 1])) <= allowed; --hi)
      skipped += std::fabs(double(row[hi - 1]));
    for (int64_t k = lo; k < hi; ++k) {
      plan.stream.push_back(k % plan.orig);
      plan.offset.push_back(k / plan.orig);
      plan.max_offset = std::max(plan.max_offset, k / plan.orig);
      coeff.push_back(row[k]);
    }
    plan.phase_begin.push_back(static_cast<int64_t>(coeff.size()));
  }
}

template <class T>
const std::vector<T>& coefficients(const PolyphasePlan& plan) {
  if constexpr (std::is_same_v<T, float>) return plan.coeff32;
  else return plan.coeff64;
}

// Eight 32-byte accumulators: enough independent multiply-adds in flight to
// keep both FMA ports busy (GCC/Clang vector extensions; two NEON registers
// each on aarch64).
template <class T>
struct Lanes {
  typedef T V __attribute__((vector_size(32)));
  static constexpr int64_t kWidth = 32 / sizeof(T);
  static constexpr int64_t kAccumulators = 8;
  static constexpr int64_t kSub = kWidth * kAccumulators;  // outputs per register block
  static constexpr int64_t kBlock = 4 * kSub;              // outputs per phase per task
};

template <class T>
void run(const T* x, T* y, int64_t rows, int64_t length, int64_t target, const PolyphasePlan& plan) {
  using L = Lanes<T>;
  using V = typename L::V;
  const int64_t o = plan.orig, n = plan.next, w = plan.width;
  const int64_t periods = length / o + 1;  // convolution outputs per phase before the crop
  const int64_t blocks = (periods + L::kBlock - 1) / L::kBlock;
  const int64_t stride = L::kBlock + plan.max_offset;  // one stream's samples in a task's buffer
  const std::vector<T>& coeff = coefficients<T>(plan);

  parallel_for(0, rows * blocks, 1, [&](int64_t task_begin, int64_t task_end) {
    std::vector<T> streams(static_cast<size_t>(o * stride));
    alignas(32) T sums[L::kSub];
    for (int64_t task = task_begin; task < task_end; ++task) {
      const int64_t row = task / blocks, j0 = (task % blocks) * L::kBlock;
      const T* xr = x + row * length;
      T* yr = y + row * target;
      // s_r[i] = xpad[(j0 + i) * o + r], zero outside the waveform.
      for (int64_t i = 0; i < stride; ++i) {
        const int64_t q0 = (j0 + i) * o - w;
        if (q0 >= 0 && q0 + o <= length) {
          for (int64_t r = 0; r < o; ++r) streams[r * stride + i] = xr[q0 + r];
        } else {
          for (int64_t r = 0; r < o; ++r) {
            const int64_t q = q0 + r;
            streams[r * stride + i] = (q >= 0 && q < length) ? xr[q] : T(0);
          }
        }
      }
      for (int64_t p = 0; p < n; ++p) {
        // Outputs (j0 + jb) * n + p below target.
        const int64_t valid = std::min<int64_t>(L::kBlock, (target - p + n - 1) / n - j0);
        if (valid <= 0) continue;
        const int64_t t_begin = plan.phase_begin[p], t_end = plan.phase_begin[p + 1];
        for (int64_t jsub = 0; jsub < valid; jsub += L::kSub) {
          V acc[L::kAccumulators] = {};
          for (int64_t t = t_begin; t < t_end; ++t) {
            const V c = V{} + coeff[t];
            const T* src = streams.data() + plan.stream[t] * stride + plan.offset[t] + jsub;
            for (int64_t a = 0; a < L::kAccumulators; ++a) {
              V v;
              std::memcpy(&v, src + a * L::kWidth, sizeof(V));
              acc[a] += c * v;
            }
          }
          std::memcpy(sums, acc, sizeof(sums));
          const int64_t count = std::min<int64_t>(L::kSub, valid - jsub);
          for (int64_t jb = 0; jb < count; ++jb) yr[(j0 + jsub + jb) * n + p] = sums[jb];
        }
      }
    }
  });
}

}  // namespace

PolyphasePlan make_polyphase_plan(const Tensor& kernel, int64_t orig, int64_t width) {
  PolyphasePlan plan;
  plan.dtype = kernel.dtype();
  plan.orig = orig;
  plan.next = kernel.size(0);
  plan.width = width;
  const int64_t taps = kernel.size(2);
  if (plan.dtype == kFloat32) fill_plan(kernel.data_ptr<float>(), plan.next, taps, plan, plan.coeff32);
  else fill_plan(kernel.data_ptr<double>(), plan.next, taps, plan, plan.coeff64);
  return plan;
}

Tensor polyphase_resample(const Tensor& waveform, const PolyphasePlan& plan, int64_t target) {
  const int64_t rows = waveform.size(0), length = waveform.size(1);
  Tensor out = empty({rows, target}, TensorOptions(plan.dtype));
  if (rows == 0 || target == 0) return out;
  if (plan.dtype == kFloat32) run(waveform.data_ptr<float>(), out.data_ptr<float>(), rows, length, target, plan);
  else run(waveform.data_ptr<double>(), out.data_ptr<double>(), rows, length, target, plan);
  return out;
}

}  // namespace ember::audio::functional::detail
