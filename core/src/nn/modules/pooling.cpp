#include "ember/nn/modules/pooling.h"

#include <cmath>
#include <ostream>
#include <string>

#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace F = functional;
using detail::py_bool;
using detail::py_ints;

namespace {

std::string pool_name(const char* base, size_t d) { return base + std::to_string(d) + "d"; }

void check_window(const std::string& name, size_t d, const F::ExpandingInts& kernel_size,
                  const F::ExpandingInts& stride) {
  EMBER_CHECK(!kernel_size.values.empty(), name, ": kernel_size must be given");
  const auto nd = static_cast<int64_t>(d);
  (void)kernel_size.expand(nd, name.c_str(), "kernel_size");
  if (!stride.values.empty()) (void)stride.expand(nd, name.c_str(), "stride");
}

// Python's repr of a norm_type given as an int (2) or a float (1.5).
std::string py_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  return detail::py_float(v);
}

}  // namespace

// ---- MaxPool ----

template <size_t D>
MaxPoolImpl<D>::MaxPoolImpl(const Options& o) : Module(pool_name("MaxPool", D)), options(o) {
  check_window(name(), D, o.kernel_size, o.stride);
}

template <size_t D>
Tensor MaxPoolImpl<D>::forward(const Tensor& input) {
  const Options& o = options;
  F::MaxPoolFuncOptions fo{.stride = o.stride, .padding = o.padding, .dilation = o.dilation, .ceil_mode = o.ceil_mode};
  if constexpr (D == 1) return F::max_pool1d(input, o.kernel_size, fo);
  if constexpr (D == 2) return F::max_pool2d(input, o.kernel_size, fo);
  return F::max_pool3d(input, o.kernel_size, fo);
}

template <size_t D>
std::pair<Tensor, Tensor> MaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  const Options& o = options;
  F::MaxPoolFuncOptions fo{.stride = o.stride, .padding = o.padding, .dilation = o.dilation, .ceil_mode = o.ceil_mode};
  if constexpr (D == 1) return F::max_pool1d_with_indices(input, o.kernel_size, fo);
  if constexpr (D == 2) return F::max_pool2d_with_indices(input, o.kernel_size, fo);
  return F::max_pool3d_with_indices(input, o.kernel_size, fo);
}

template <size_t D>
void MaxPoolImpl<D>::pretty_print(std::ostream& os) const {
  const Options& o = options;
  const auto& stride = o.stride.values.empty() ? o.kernel_size.values : o.stride.values;
  os << name() << "(kernel_size=" << py_ints(o.kernel_size.values) << ", stride=" << py_ints(stride)
     << ", padding=" << py_ints(o.padding.values) << ", dilation=" << py_ints(o.dilation.values)
     << ", ceil_mode=" << py_bool(o.ceil_mode) << ")";
}

// ---- AvgPool ----

template <size_t D>
AvgPoolImpl<D>::AvgPoolImpl(const Options& o) : Module(pool_name("AvgPool", D)), options(o) {
  check_window(name(), D, o.kernel_size, o.stride);
}

template <size_t D>
Tensor AvgPoolImpl<D>::forward(const Tensor& input) {
  const Options& o = options;
  F::AvgPoolFuncOptions fo{.stride = o.stride,
                           .padding = o.padding,
                           .ceil_mode = o.ceil_mode,
                           .count_include_pad = o.count_include_pad,
                           .divisor_override = o.divisor_override};
  if constexpr (D == 1) return F::avg_pool1d(input, o.kernel_size, fo);
  if constexpr (D == 2) return F::avg_pool2d(input, o.kernel_size, fo);
  return F::avg_pool3d(input, o.kernel_size, fo);
}

template <size_t D>
void AvgPoolImpl<D>::pretty_print(std::ostream& os) const {
  const Options& o = options;
  const auto& stride = o.stride.values.empty() ? o.kernel_size.values : o.stride.values;
  // AvgPool1d stores 1-tuples (_single); 2d/3d keep what was given.
  auto fmt = [](const std::vector<int64_t>& v) { return D == 1 ? detail::py_tuple(v) : py_ints(v); };
  os << name() << "(kernel_size=" << fmt(o.kernel_size.values) << ", stride=" << fmt(stride)
     << ", padding=" << fmt(o.padding.values) << ")";
}

// ---- Adaptive pooling ----

template <AdaptiveKind K, size_t D>
AdaptivePoolImpl<K, D>::AdaptivePoolImpl(const Options& o)
    : Module(pool_name(K == AdaptiveKind::Avg ? "AdaptiveAvgPool" : "AdaptiveMaxPool", D)), options(o) {
  const size_t n = o.output_size.size();
  EMBER_CHECK(n == 1 || n == D, name(), ": output_size must have 1 or ", D, " values, got ", n);
  for (const auto& v : o.output_size)
    EMBER_CHECK(!v || *v >= 0, name(), ": output_size must be non-negative, got ", *v);
}

template <AdaptiveKind K, size_t D>
std::vector<int64_t> AdaptivePoolImpl<K, D>::output_size_for(const Tensor& input) const {
  const auto nd = static_cast<int64_t>(D);
  EMBER_CHECK(input.defined() && input.dim() >= nd, name(), ": expected an input with at least ", nd,
              " dims, got ", input.defined() ? input.dim() : 0);
  std::vector<int64_t> out(D);
  for (size_t i = 0; i < D; ++i) {
    const auto& v = options.output_size[options.output_size.size() == 1 ? 0 : i];
    out[i] = v ? *v : input.size(input.dim() - nd + static_cast<int64_t>(i));
  }
  return out;
}

template <AdaptiveKind K, size_t D>
Tensor AdaptivePoolImpl<K, D>::forward(const Tensor& input) {
  F::ExpandingInts size = output_size_for(input);
  if constexpr (K == AdaptiveKind::Avg) {
    if constexpr (D == 1) return F::adaptive_avg_pool1d(input, size);
    if constexpr (D == 2) return F::adaptive_avg_pool2d(input, size);
    return F::adaptive_avg_pool3d(input, size);
  } else {
    if constexpr (D == 1) return F::adaptive_max_pool1d(input, size);
    if constexpr (D == 2) return F::adaptive_max_pool2d(input, size);
    return F::adaptive_max_pool3d(input, size);
  }
}

template <AdaptiveKind K, size_t D>
std::pair<Tensor, Tensor> AdaptivePoolImpl<K, D>::forward_with_indices(const Tensor& input)
  requires(K == AdaptiveKind::Max)
{
  F::ExpandingInts size = output_size_for(input);
  if constexpr (D == 1) return F::adaptive_max_pool1d_with_indices(input, size);
  if constexpr (D == 2) return F::adaptive_max_pool2d_with_indices(input, size);
  return F::adaptive_max_pool3d_with_indices(input, size);
}

template <AdaptiveKind K, size_t D>
void AdaptivePoolImpl<K, D>::pretty_print(std::ostream& os) const {
  const auto& v = options.output_size;
  auto one = [](const std::optional<int64_t>& e) { return e ? std::to_string(*e) : std::string("None"); };
  os << name() << "(output_size=";
  if (v.size() == 1) {
    os << one(v[0]);
  } else {
    os << "(";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << one(v[i]);
    os << ")";
  }
  os << ")";
}

// ---- LPPool ----

template <size_t D>
LPPoolImpl<D>::LPPoolImpl(const Options& o) : Module(pool_name("LPPool", D)), options(o) {
  check_window(name(), D, o.kernel_size, o.stride);
}

template <size_t D>
Tensor LPPoolImpl<D>::forward(const Tensor& input) {
  const Options& o = options;
  F::LPPoolFuncOptions fo{.stride = o.stride, .ceil_mode = o.ceil_mode};
  if constexpr (D == 1) return F::lp_pool1d(input, o.norm_type, o.kernel_size, fo);
  return F::lp_pool2d(input, o.norm_type, o.kernel_size, fo);
}

template <size_t D>
void LPPoolImpl<D>::pretty_print(std::ostream& os) const {
  const Options& o = options;
  os << name() << "(norm_type=" << py_number(o.norm_type) << ", kernel_size=" << py_ints(o.kernel_size.values)
     << ", stride=" << (o.stride.values.empty() ? std::string("None") : py_ints(o.stride.values))
     << ", ceil_mode=" << py_bool(o.ceil_mode) << ")";
}

template class MaxPoolImpl<1>;
template class MaxPoolImpl<2>;
template class MaxPoolImpl<3>;
template class AvgPoolImpl<1>;
template class AvgPoolImpl<2>;
template class AvgPoolImpl<3>;
template class AdaptivePoolImpl<AdaptiveKind::Avg, 1>;
template class AdaptivePoolImpl<AdaptiveKind::Avg, 2>;
template class AdaptivePoolImpl<AdaptiveKind::Avg, 3>;
template class AdaptivePoolImpl<AdaptiveKind::Max, 1>;
template class AdaptivePoolImpl<AdaptiveKind::Max, 2>;
template class AdaptivePoolImpl<AdaptiveKind::Max, 3>;
template class LPPoolImpl<1>;
template class LPPoolImpl<2>;

}  // namespace ember::nn
