// HistogramObserver (torch.ao.quantization.observer, PyTorch 1.13).
#include <cmath>
#include <limits>
#include <vector>

#include "ember/ao/quantization/observer.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/warning.h"
#include "ember/ops/factories.h"

namespace ember::ao::quantization {

// Note [Histogram observer]
// PyTorch 1.13's HistogramObserver written as loops with its arithmetic kept:
// its tensor expressions run in float32 (Python floats enter as float32
// wrapped numbers, torch.tensor(python float) is float32), cumulative sums
// accumulate in double and store float32, and the Python-level values
// (bin widths in _compute_quantization_error, alpha/beta) are doubles.
// Two PyTorch behaviours are kept on purpose because they decide the result:
// - the histogram range passed to torch.histc is int(min_val), int(max_val)
//   (truncated toward zero), so values beyond the truncated range are not
//   counted, and a truncated range of zero width falls back to the data's
//   own min/max (histc's rule), then to [min - 1, max + 1];
// - histc bins by linear interpolation without correction:
//   bin = (int64)((x - lo) * bins / (hi - lo)) in float32, the last bin
//   closed on the right, values outside [lo, hi] and NaN skipped.
// Sums over the 2048-bin error vector accumulate in double (PyTorch's float32
// cascade sum may differ in the last bits; the search compares errors of
// different clipping ranges, which differ far more than that).

namespace {

std::vector<float> to_floats(const Tensor& x) {
  const Tensor c = x.detach().to(DType::Float32).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

// torch.histc(x, bins, min=lo_arg, max=hi_arg) on CPU.
std::vector<float> histc(const std::vector<float>& x, int64_t bins, double lo_arg, double hi_arg) {
  double lo = lo_arg, hi = hi_arg;
  if (lo == hi && !x.empty()) {
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    for (float v : x) {
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    lo = mn;
    hi = mx;
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "HistogramObserver: histogram range [", lo, ", ", hi,
              "] is not finite (the observed values hold inf or NaN)");
  std::vector<float> hist(static_cast<size_t>(bins), 0.0f);
  const auto left = static_cast<float>(lo), right = static_cast<float>(hi);
  for (float v : x) {
    if (!(v >= left && v <= right)) continue;
    auto pos = static_cast<int64_t>((v - left) * static_cast<float>(bins) / (right - left));
    if (pos == bins) pos -= 1;
    hist[static_cast<size_t>(pos)] += 1.0f;
  }
  return hist;
}

// PyTorch's div(a, b, rounding_mode="floor") for floats.
float floor_div(float a, float b) {
  const float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0.0f && ((b < 0) != (mod < 0))) div -= 1.0f;
  float floordiv;
  if (div != 0.0f) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5f) floordiv += 1.0f;
  } else {
    floordiv = std::copysign(0.0f, a / b);
  }
  return floordiv;
}

float get_norm(float delta_begin, float delta_end, float density) {
  const float norm = (delta_end * delta_end * delta_end - delta_begin * delta_begin * delta_begin) / 3.0f;
  return density * norm;
}

}  // namespace

HistogramObserver::HistogramObserver(const ObserverOptions& options)
    : UniformQuantizationObserverBase("HistogramObserver", options, QScheme::kPerTensorAffine),
      bins_(options.bins),
      upsample_rate_(options.upsample_rate) {
  EMBER_CHECK(is_per_tensor(qscheme_), name(), ": qscheme ", qscheme_,
              " is not supported (HistogramObserver supports torch.per_tensor_affine and torch.per_tensor_symmetric)");
  EMBER_CHECK(bins_ > 0, name(), ": bins must be positive, got ", bins_);
  EMBER_CHECK(upsample_rate_ > 0, name(), ": upsample_rate must be positive, got ", upsample_rate_);
  register_buffer("histogram", zeros({bins_}, DType::Float32), &histogram);
  register_buffer("min_val", full({}, INFINITY, DType::Float32), &min_val);
  register_buffer("max_val", full({}, -INFINITY, DType::Float32), &max_val);
  const int64_t bits = dtype_ == QDType::kQInt32 ? 32 : dtype_ == QDType::kQUInt4x2 ? 8 : 8;
  dst_nbins_ = int64_t{1} << bits;
}

Tensor HistogramObserver::forward(const Tensor& x_orig) {
  if (x_orig.numel() == 0) return x_orig;
  NoGradGuard no_grad;
  const std::vector<float> x = to_floats(x_orig);
  EMBER_CHECK(histogram.numel() == bins_, name(), ": the histogram buffer has ", histogram.numel(),
              " bins, expected ", bins_);
  const float cur_min_val = min_val.item<float>(), cur_max_val = max_val.item<float>();
  float new_min = std::numeric_limits<float>::infinity(), new_max = -new_min;
  for (float v : x) {
    new_min = std::fmin(new_min, v);
    new_max = std::fmax(new_max, v);
    if (std::isnan(v)) new_min = new_max = v;
  }
  const bool uninitialized = cur_min_val == INFINITY && cur_max_val == -INFINITY;
  if (uninitialized || cur_min_val == cur_max_val) {
    min_val.fill_(new_min);
    max_val.fill_(new_max);
    const auto hist = histc(x, bins_, std::trunc(static_cast<double>(new_min)), std::trunc(static_cast<double>(new_max)));
    histogram.copy_(tensor(hist, DType::Float32));
    return x_orig;
  }
  const float combined_min0 = std::fmin(new_min, cur_min_val), combined_max0 = std::fmax(new_max, cur_max_val);
  // _adjust_min_max
  const float hist_bin_width = (cur_max_val - cur_min_val) / static_cast<float>(bins_ * upsample_rate_);
  const float span = static_cast<float>(bins_) * hist_bin_width;
  const auto downsample_rate = static_cast<int64_t>(std::ceil((combined_max0 - combined_min0) / span));
  const float e = static_cast<float>(downsample_rate) * span - (combined_max0 - combined_min0);
  const float combined_min = combined_min0, combined_max = combined_max0 + e;
  const auto start_idx = static_cast<int64_t>(std::nearbyint((cur_min_val - combined_min) / hist_bin_width));
  std::vector<float> combined = histc(x, bins_, std::trunc(static_cast<double>(combined_min)),
                                      std::trunc(static_cast<double>(combined_max)));
  const std::vector<float> old = to_floats(histogram);
  if (combined_min == cur_min_val && combined_max == cur_max_val) {
    for (size_t i = 0; i < combined.size(); ++i) combined[i] += old[i];
  } else {
    // _combine_histograms: upsample the old histogram, place it at start_idx
    // in the combined range, and sum every downsample_rate upsampled bins.
    const int64_t total_bins = bins_ * downsample_rate;
    EMBER_CHECK(downsample_rate >= 1 && start_idx >= 0 && start_idx + bins_ * upsample_rate_ <= total_bins, name(),
                ": cannot merge histograms (downsample_rate ", downsample_rate, ", start_idx ", start_idx, ")");
    std::vector<float> with_range(static_cast<size_t>(total_bins), 0.0f);
    for (int64_t i = 0; i < bins_ * upsample_rate_; ++i)
      with_range[static_cast<size_t>(start_idx + i)] = old[static_cast<size_t>(i / upsample_rate_)];
    std::vector<double> integral(static_cast<size_t>(bins_));
    double acc = 0.0;
    for (int64_t i = 0; i < total_bins; ++i) {
      acc += with_range[static_cast<size_t>(i)];
      if ((i + 1) % downsample_rate == 0) integral[static_cast<size_t>(i / downsample_rate)] = acc;
    }
    for (int64_t i = 0; i < bins_; ++i) {
      const double shifted = i == 0 ? 0.0 : static_cast<double>(static_cast<float>(integral[static_cast<size_t>(i - 1)]));
      const double interpolated = (integral[static_cast<size_t>(i)] - shifted) / static_cast<double>(upsample_rate_);
      combined[static_cast<size_t>(i)] += static_cast<float>(interpolated);
    }
  }
  histogram.copy_(tensor(combined, DType::Float32));
  min_val.fill_(combined_min);
  max_val.fill_(combined_max);
  return x_orig;
}

double HistogramObserver::compute_quantization_error(int64_t next_start_bin, int64_t next_end_bin) const {
  const double bin_width = (static_cast<double>(max_val.item<float>()) - static_cast<double>(min_val.item<float>())) /
                           static_cast<double>(bins_);
  const double dst_bin_width =
      bin_width * static_cast<double>(next_end_bin - next_start_bin + 1) / static_cast<double>(dst_nbins_);
  if (dst_bin_width == 0.0) return 0.0;
  const std::vector<float> hist = to_floats(histogram);
  const auto bw = static_cast<float>(bin_width), dbw = static_cast<float>(dst_bin_width);
  const auto half = static_cast<float>(dst_bin_width / 2);
  const auto last = static_cast<float>(dst_nbins_ - 1);
  double sum = 0.0;
  for (int64_t i = 0; i < bins_; ++i) {
    const float src_begin = static_cast<float>(i - next_start_bin) * bw;
    const float src_end = src_begin + bw;
    const float dst_of_begin = std::min(std::max(floor_div(src_begin, dbw), 0.0f), last);
    const float dst_of_begin_center = (dst_of_begin + 0.5f) * dbw;
    const float dst_of_end = std::min(std::max(floor_div(src_end, dbw), 0.0f), last);
    const float density = hist[static_cast<size_t>(i)] / bw;
    float norm = 0.0f;
    norm += get_norm(src_begin - dst_of_begin_center, 1.0f * half, density);
    norm += (dst_of_end - dst_of_begin - 1.0f) * get_norm(static_cast<float>(-dst_bin_width / 2), half, density);
    const float dst_of_end_center = dst_of_end * dbw + half;
    norm += get_norm(static_cast<float>(-dst_bin_width / 2), src_end - dst_of_end_center, density);
    sum += norm;
  }
  return static_cast<double>(static_cast<float>(sum));
}

std::pair<Tensor, Tensor> HistogramObserver::non_linear_param_search() const {
  EMBER_CHECK(histogram.numel() == bins_, name(), ": bins mismatch (histogram has ", histogram.numel(), ", expected ",
              bins_, ")");
  const float mn = min_val.item<float>(), mx = max_val.item<float>();
  const float bin_width = (mx - mn) / static_cast<float>(bins_);
  const std::vector<float> hist = to_floats(histogram);
  std::vector<float> csum(hist.size());
  double acc = 0.0;
  for (size_t i = 0; i < hist.size(); ++i) csum[i] = static_cast<float>(acc += hist[i]);
  const auto total = static_cast<double>(static_cast<float>(acc));
  constexpr double stepsize = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int64_t start_bin = 0, end_bin = bins_ - 1;
  double norm_min = std::numeric_limits<double>::infinity();
  while (alpha < beta) {
    const double next_alpha = alpha + stepsize, next_beta = beta - stepsize;
    int64_t l = start_bin, r = end_bin;
    while (l < end_bin && csum[static_cast<size_t>(l)] < static_cast<float>(next_alpha * total)) ++l;
    while (r > start_bin && csum[static_cast<size_t>(r)] > static_cast<float>(next_beta * total)) --r;
    int64_t next_start_bin = start_bin, next_end_bin = end_bin;
    if ((l - start_bin) > (end_bin - r)) {
      next_start_bin = l;
      alpha = next_alpha;
    } else {
      next_end_bin = r;
      beta = next_beta;
    }
    if (next_start_bin == start_bin && next_end_bin == end_bin) continue;
    const double norm = compute_quantization_error(next_start_bin, next_end_bin);
    if (norm > norm_min) break;
    norm_min = norm;
    start_bin = next_start_bin;
    end_bin = next_end_bin;
  }
  const float new_min = mn + bin_width * static_cast<float>(start_bin);
  const float new_max = mn + bin_width * static_cast<float>(end_bin + 1);
  return {full({}, new_min, DType::Float32), full({}, new_max, DType::Float32)};
}

std::pair<Tensor, Tensor> HistogramObserver::calculate_qparams() {
  if (min_val.item<float>() == INFINITY && max_val.item<float>() == -INFINITY) {
    EMBER_WARN(name(), ": must run observer before calling calculate_qparams; returning scale 1 and zero_point 0");
    return {full({1}, 1.0, DType::Float32), full({1}, 0, DType::Int64)};
  }
  auto [new_min, new_max] = non_linear_param_search();
  return calculate_qparams_from(new_min, new_max);
}

void HistogramObserver::pretty_print(std::ostream& os) const {
  os << name() << "(min_val=" << min_val.item<float>() << ", max_val=" << max_val.item<float>() << ")";
}

}  // namespace ember::ao::quantization
