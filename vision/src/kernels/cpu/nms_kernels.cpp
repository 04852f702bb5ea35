// The CPU kernel of nms_slot, as torchvision's nms_kernel.cpp: a stable sort
// by decreasing score, then a greedy pass that keeps the best remaining box
// and flags every later box overlapping it by IoU > threshold. The overlap is
// computed in the boxes' dtype with torchvision's expression, so borderline
// IoUs fall on the same side.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <ember/ops/factories.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {
namespace {

template <class T>
Tensor nms_loop(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  const int64_t n = boxes.size(0);
  const T* b = boxes.data_ptr<T>();
  const T* s = scores.data_ptr<T>();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // torch's sort puts NaN first when descending; a NaN score compares as largest.
  std::stable_sort(order.begin(), order.end(), [s](int64_t a, int64_t c) {
    const bool a_nan = s[a] != s[a], c_nan = s[c] != s[c];
    if (a_nan || c_nan) return a_nan && !c_nan;
    return s[a] > s[c];
  });
  std::vector<T> areas(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) areas[i] = (b[i * 4 + 2] - b[i * 4 + 0]) * (b[i * 4 + 3] - b[i * 4 + 1]);
  std::vector<uint8_t> suppressed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  const T threshold = static_cast<T>(iou_threshold);
  for (int64_t oi = 0; oi < n; ++oi) {
    const int64_t i = order[oi];
    if (suppressed[i]) continue;
    keep.push_back(i);
    const T ix1 = b[i * 4 + 0], iy1 = b[i * 4 + 1], ix2 = b[i * 4 + 2], iy2 = b[i * 4 + 3];
    const T iarea = areas[i];
    for (int64_t oj = oi + 1; oj < n; ++oj) {
      const int64_t j = order[oj];
      if (suppressed[j]) continue;
      const T xx1 = std::max(ix1, b[j * 4 + 0]), yy1 = std::max(iy1, b[j * 4 + 1]);
      const T xx2 = std::min(ix2, b[j * 4 + 2]), yy2 = std::min(iy2, b[j * 4 + 3]);
      const T w = std::max(static_cast<T>(0), xx2 - xx1), h = std::max(static_cast<T>(0), yy2 - yy1);
      const T inter = w * h;
      const T ovr = inter / (iarea + areas[j] - inter);
      if (ovr > threshold) suppressed[j] = 1;
    }
  }
  Tensor out = empty({static_cast<int64_t>(keep.size())}, kInt64);
  std::copy(keep.begin(), keep.end(), out.data_ptr<int64_t>());
  return out;
}

Tensor nms_kernel(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  if (boxes.dtype() == kFloat64) return nms_loop<double>(boxes, scores, iou_threshold);
  return nms_loop<float>(boxes, scores, iou_threshold);
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(nms_slot, CPU, nms_kernel, dtype_bit(kFloat32) | dtype_bit(kFloat64));

}  // namespace ember::vision
