// CPU kernels of the scan family. Inputs and outputs are contiguous (the op
// makes them so) and viewed as [outer, n, inner] around the scanned dim. Each
// "lane" (one outer index and one inner index) is scanned serially from 0 to
// n, so results never depend on the thread count; blocks of adjacent inner
// lanes are scanned together so the innermost loop is contiguous.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "ember/core/parallel.h"
#include "kernels/cpu/convert.h"
#include "kernels/cpu/math.h"
#include "kernels/slots/scan_kernels.h"

namespace ember {
namespace {

constexpr int64_t kLaneBlock = 64;
// cummax and cummin compare: every real dtype and bool.
constexpr uint32_t kCumMinMaxDTypes = kMaskReal | kMaskBool;

// Accumulation type of cumsum/cumprod, as PyTorch's CPU acc_type.
template <class T>
using scan_acc_t = std::conditional_t<
    std::is_same_v<T, float>, double,
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float,
    std::conditional_t<std::is_same_v<T, complex64>, complex128,
    std::conditional_t<std::is_integral_v<T>, int64_t, T>>>>;

struct Geometry {
  int64_t outer = 1, n = 1, inner = 1;
  Geometry(const Tensor& t, int64_t dim) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d < dim) outer *= t.size(d);
      else if (d > dim) inner *= t.size(d);
    }
    n = t.dim() == 0 ? 1 : t.size(dim);
  }
};

// Calls f(base, lane_begin, lane_count) for every block of lanes, in parallel;
// base is the element offset of the block's first lane at position 0.
template <class F>
void for_each_lane_block(const Geometry& g, const F& f) {
  const int64_t blocks_per_outer = (g.inner + kLaneBlock - 1) / kLaneBlock;
  const int64_t units = g.outer * blocks_per_outer;
  const int64_t work_per_unit = std::max<int64_t>(1, g.n * std::min(g.inner, kLaneBlock));
  parallel_for(0, units, std::max<int64_t>(1, kGrainSize / work_per_unit), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / blocks_per_outer;
      const int64_t j0 = (u % blocks_per_outer) * kLaneBlock;
      f(o * g.n * g.inner + j0, std::min(kLaneBlock, g.inner - j0));
    }
  });
}

// log(exp(x) + exp(acc)) as PyTorch's _log_add_exp_helper (x: the new element).
template <class A>
A log_add_exp(A x, A acc) {
  const A lo = std::isnan(acc) ? acc : std::min(x, acc);
  const A hi = std::isnan(acc) ? acc : std::max(x, acc);
  if (lo != hi || std::isfinite(lo)) return hi + std::log1p(std::exp(lo - hi));
  return x;  // both infinite with the same sign
}

// Scans every lane with step(acc, x) -> acc from `init`; the op is a template
// parameter so the inner loops stay free of branches.
template <class T, class Acc, class Step>
void scan_lanes(const Tensor& in, Tensor& out, int64_t dim, Acc init, Step step) {
  const Geometry g(in, dim);
  const T* src = in.data_ptr<T>();
  T* dst = out.data_ptr<T>();
  for_each_lane_block(g, [&](int64_t base, int64_t lanes) {
    // Scanned dim innermost: one running value. (Tested on g.inner, not on
    // `lanes`: the last block of a wider inner dim can hold a single lane too,
    // and its elements are g.inner apart.)
    if (g.inner == 1) {
      Acc acc = init;
      for (int64_t i = 0; i < g.n; ++i) {
        acc = step(acc, convert<Acc>(src[base + i]));
        dst[base + i] = convert<T>(acc);
      }
      return;
    }
    Acc acc[kLaneBlock];
    std::fill(acc, acc + lanes, init);
    for (int64_t i = 0; i < g.n; ++i) {
      const T* x = src + base + i * g.inner;
      T* y = dst + base + i * g.inner;
      for (int64_t j = 0; j < lanes; ++j) {
        acc[j] = step(acc[j], convert<Acc>(x[j]));
        y[j] = convert<T>(acc[j]);
      }
    }
  });
}

template <class T>
void scan_typed(const Tensor& in, Tensor& out, int64_t dim, ScanOp op) {
  using Acc = scan_acc_t<T>;
  switch (op) {
    case ScanOp::Sum: return scan_lanes<T>(in, out, dim, Acc(0), [](Acc a, Acc x) { return math::wrapping_add(a, x); });
    case ScanOp::Prod: return scan_lanes<T>(in, out, dim, Acc(1), [](Acc a, Acc x) { return math::wrapping_mul(a, x); });
    case ScanOp::LogSumExp:
      if constexpr (std::is_floating_point_v<Acc>)
        return scan_lanes<T>(in, out, dim, -std::numeric_limits<Acc>::infinity(),
                             [](Acc a, Acc x) { return log_add_exp(x, a); });
      break;
  }
}

void scan_kernel(const Tensor& in, Tensor& out, int64_t dim, ScanOp op) {
  if (op == ScanOp::LogSumExp) {
    dispatch<kMaskFloating>(in.dtype(), kScanOpNames[static_cast<int>(op)], [&](auto t) { scan_typed<decltype(t)>(in, out, dim, op); });
    return;
  }
  dispatch<kMaskAll>(in.dtype(), kScanOpNames[static_cast<int>(op)],
                     [&](auto t) { scan_typed<decltype(t)>(in, out, dim, op); });
}

template <class T>
void cum_min_max_typed(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool is_max) {
  using C = compute_type_t<T>;
  const Geometry g(in, dim);
  const T* src = in.data_ptr<T>();
  T* vals = values.data_ptr<T>();
  int64_t* idxs = indices.data_ptr<int64_t>();
  for_each_lane_block(g, [&](int64_t base, int64_t lanes) {
    C best[kLaneBlock];
    int64_t where[kLaneBlock] = {};
    for (int64_t j = 0; j < lanes; ++j) best[j] = static_cast<C>(src[base + j]);
    for (int64_t i = 0; i < g.n; ++i) {
      const int64_t off = base + i * g.inner;
      for (int64_t j = 0; j < lanes; ++j) {
        const C x = static_cast<C>(src[off + j]);
        // >= / <=: ties move the index to the latest position, as PyTorch.
        const bool better = is_max ? x >= best[j] : x <= best[j];
        if (math::isnan(x) || (!math::isnan(best[j]) && better)) {
          best[j] = x;
          where[j] = i;
        }
        vals[off + j] = static_cast<T>(best[j]);
        idxs[off + j] = where[j];
      }
    }
  });
}

void cum_min_max_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool is_max) {
  dispatch<kCumMinMaxDTypes>(in.dtype(), is_max ? "cummax" : "cummin", [&](auto t) {
    cum_min_max_typed<decltype(t)>(in, values, indices, dim, is_max);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(scan_slot, CPU, scan_kernel);
EMBER_REGISTER_KERNEL_FOR_DTYPES(cum_min_max_slot, CPU, cum_min_max_kernel, kCumMinMaxDTypes);
constexpr uint32_t kCumMinMaxOpDTypes[] = {kCumMinMaxDTypes, kCumMinMaxDTypes};  // cummin, cummax
static_assert(std::size(kCumMinMaxOpDTypes) == std::size(kCumMinMaxOpNames));
static const bool cum_min_max_op_dtypes_registered =
    cum_min_max_slot.set_op_dtypes(DeviceType::CPU, kCumMinMaxOpDTypes);

// The dtypes each scan computes (scan_kernel's dispatch): cumsum and cumprod
// every dtype, logcumsumexp the floating ones.
constexpr uint32_t kScanOpDTypes[] = {kMaskAll, kMaskAll, kMaskFloating};
static_assert(std::size(kScanOpDTypes) == std::size(kScanOpNames));
static const bool scan_op_dtypes_registered = scan_slot.set_op_dtypes(DeviceType::CPU, kScanOpDTypes);

}  // namespace ember
