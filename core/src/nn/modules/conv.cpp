#include "ember/nn/modules/conv.h"

#include <cmath>
#include <ostream>
#include <string>

#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace F = functional;

namespace {

std::string conv_name(bool transposed, size_t d) {
  return std::string(transposed ? "ConvTranspose" : "Conv") + std::to_string(d) + "d";
}

// The checks of PyTorch's _ConvNd.__init__; returns the expanded kernel size.
std::vector<int64_t> check_common(const std::string& name, size_t d, int64_t in, int64_t out, int64_t groups,
                                  const F::ExpandingInts& kernel_size) {
  EMBER_CHECK(in >= 0 && out >= 0, name, ": in_channels and out_channels must be non-negative, got ", in, " and ",
              out);
  EMBER_CHECK(groups > 0, name, ": groups must be a positive integer (got ", groups, ")");
  EMBER_CHECK(in % groups == 0, name, ": in_channels must be divisible by groups (in_channels=", in,
              ", groups=", groups, ")");
  EMBER_CHECK(out % groups == 0, name, ": out_channels must be divisible by groups (out_channels=", out,
              ", groups=", groups, ")");
  EMBER_CHECK(!kernel_size.values.empty(), name, ": kernel_size must be given");
  std::vector<int64_t> k = kernel_size.expand(static_cast<int64_t>(d), name.c_str(), "kernel_size");
  for (int64_t v : k) EMBER_CHECK(v > 0, name, ": kernel_size must be positive, got ", detail::py_tuple(k));
  return k;
}

// PyTorch's _ConvNd.reset_parameters().
void reset_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    if (fan_in != 0) {
      const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
      init::uniform_(bias, -bound, bound);
    }
  }
}

std::string shape_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v)
    if (e != x) return false;
  return true;
}

DimVector weight_shape(int64_t a, int64_t b, const std::vector<int64_t>& k) {
  DimVector s{a, b};
  for (int64_t v : k) s.push_back(v);
  return s;
}

}  // namespace

// ---- Conv ----

template <size_t D>
ConvImpl<D>::ConvImpl(const Options& o) : Module(conv_name(false, D)), options(o) {
  const std::string& n = name();
  const auto nd = static_cast<int64_t>(D);
  kernel_size = check_common(n, D, o.in_channels, o.out_channels, o.groups, o.kernel_size);
  stride = o.stride.expand(nd, n.c_str(), "stride");
  dilation = o.dilation.expand(nd, n.c_str(), "dilation");
  for (int64_t s : stride) EMBER_CHECK(s > 0, n, ": stride must be positive, got ", detail::py_tuple(stride));
  for (int64_t s : dilation) EMBER_CHECK(s > 0, n, ": dilation must be positive, got ", detail::py_tuple(dilation));
  if (o.padding.mode.empty()) {
    padding = F::ExpandingInts(o.padding.values).expand(nd, n.c_str(), "padding");
    for (int64_t p : padding) EMBER_CHECK(p >= 0, n, ": padding must be non-negative, got ", detail::py_tuple(padding));
  } else {
    EMBER_CHECK(o.padding.mode == "same" || o.padding.mode == "valid", n, ": Invalid padding string '",
                o.padding.mode, "', should be one of {'valid', 'same'}");
    EMBER_CHECK(o.padding.mode != "same" || all_equal(stride, 1), n,
                ": padding='same' is not supported for strided convolutions");
  }
  EMBER_CHECK(o.padding_mode == "zeros" || o.padding_mode == "reflect" || o.padding_mode == "replicate" ||
                  o.padding_mode == "circular",
              n, ": padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='",
              o.padding_mode, "'");
  register_parameter("weight", empty(weight_shape(o.out_channels, o.in_channels / o.groups, kernel_size)), &weight);
  if (o.bias) register_parameter("bias", empty({o.out_channels}), &bias);
  reset_parameters();
}

template <size_t D>
void ConvImpl<D>::reset_parameters() {
  reset_conv_parameters(weight, bias);
}

template <size_t D>
Tensor ConvImpl<D>::forward(const Tensor& input) {
  // The functional op pads non-zero modes with ember::pad (PyTorch's
  // _reversed_padding_repeated_twice, asymmetric for "same" with an even
  // total) and takes "same"/"valid" directly: no copies of its own here.
  F::ConvFuncOptions fo{.bias = bias,
                        .stride = stride,
                        .padding = options.padding.mode.empty() ? F::ConvPadding(padding) : options.padding,
                        .dilation = dilation,
                        .groups = options.groups,
                        .padding_mode = options.padding_mode};
  if constexpr (D == 1) return F::conv1d(input, weight, fo);
  if constexpr (D == 2) return F::conv2d(input, weight, fo);
  return F::conv3d(input, weight, fo);
}

template <size_t D>
void ConvImpl<D>::pretty_print(std::ostream& os) const {
  const Options& o = options;
  os << name() << "(" << o.in_channels << ", " << o.out_channels << ", kernel_size=" << detail::py_tuple(kernel_size)
     << ", stride=" << detail::py_tuple(stride);
  if (!o.padding.mode.empty())
    os << ", padding=" << o.padding.mode;
  else if (!all_equal(padding, 0))
    os << ", padding=" << detail::py_tuple(padding);
  if (!all_equal(dilation, 1)) os << ", dilation=" << detail::py_tuple(dilation);
  if (o.groups != 1) os << ", groups=" << o.groups;
  if (!o.bias) os << ", bias=False";
  if (o.padding_mode != "zeros") os << ", padding_mode=" << o.padding_mode;
  os << ")";
}

// ---- ConvTranspose ----

template <size_t D>
ConvTransposeImpl<D>::ConvTransposeImpl(const Options& o) : Module(conv_name(true, D)), options(o) {
  const std::string& n = name();
  const auto nd = static_cast<int64_t>(D);
  EMBER_CHECK(o.padding_mode == "zeros", n, ": Only \"zeros\" padding mode is supported for ", n, " (got '",
              o.padding_mode, "')");
  kernel_size = check_common(n, D, o.in_channels, o.out_channels, o.groups, o.kernel_size);
  stride = o.stride.expand(nd, n.c_str(), "stride");
  padding = o.padding.expand(nd, n.c_str(), "padding");
  output_padding = o.output_padding.expand(nd, n.c_str(), "output_padding");
  dilation = o.dilation.expand(nd, n.c_str(), "dilation");
  for (int64_t s : stride) EMBER_CHECK(s > 0, n, ": stride must be positive, got ", detail::py_tuple(stride));
  for (int64_t s : dilation) EMBER_CHECK(s > 0, n, ": dilation must be positive, got ", detail::py_tuple(dilation));
  for (int64_t p : padding) EMBER_CHECK(p >= 0, n, ": padding must be non-negative, got ", detail::py_tuple(padding));
  register_parameter("weight", empty(weight_shape(o.in_channels, o.out_channels / o.groups, kernel_size)), &weight);
  if (o.bias) register_parameter("bias", empty({o.out_channels}), &bias);
  reset_parameters();
}

template <size_t D>
void ConvTransposeImpl<D>::reset_parameters() {
  reset_conv_parameters(weight, bias);
}

template <size_t D>
Tensor ConvTransposeImpl<D>::run(const Tensor& input, const std::vector<int64_t>& opad) {
  F::ConvTransposeFuncOptions fo{.bias = bias,
                                 .stride = stride,
                                 .padding = padding,
                                 .output_padding = opad,
                                 .groups = options.groups,
                                 .dilation = dilation};
  if constexpr (D == 1) return F::conv_transpose1d(input, weight, fo);
  if constexpr (D == 2) return F::conv_transpose2d(input, weight, fo);
  return F::conv_transpose3d(input, weight, fo);
}

template <size_t D>
Tensor ConvTransposeImpl<D>::forward(const Tensor& input) {
  return run(input, output_padding);
}

template <size_t D>
Tensor ConvTransposeImpl<D>::forward(const Tensor& input, const std::vector<int64_t>& output_size) {
  return run(input, output_padding_for(input, output_size));
}

// PyTorch's _ConvTransposeNd._output_padding.
template <size_t D>
std::vector<int64_t> ConvTransposeImpl<D>::output_padding_for(const Tensor& input,
                                                              const std::vector<int64_t>& output_size) const {
  const std::string& n = name();
  const auto nd = static_cast<int64_t>(D);
  EMBER_CHECK(input.defined() && (input.dim() == nd + 1 || input.dim() == nd + 2), n, ": Expected ", nd + 1,
              "D (unbatched) or ", nd + 2, "D (batched) input, but got input of size: ",
              input.defined() ? shape_str(input.sizes()) : std::string("(undefined)"));
  const int64_t non_spatial = input.dim() == nd + 2 ? 2 : 1;
  std::vector<int64_t> size = output_size;
  if (static_cast<int64_t>(size.size()) == non_spatial + nd) size.erase(size.begin(), size.begin() + non_spatial);
  EMBER_CHECK(static_cast<int64_t>(size.size()) == nd, "ConvTranspose", nd, "D: for ", input.dim(),
              "D input, output_size must have ", nd, " or ", non_spatial + nd, " elements (got ", output_size.size(),
              ")");
  std::vector<int64_t> min_sizes(D), max_sizes(D), res(D);
  for (size_t d = 0; d < D; ++d) {
    min_sizes[d] = (input.size(static_cast<int64_t>(d) + non_spatial) - 1) * stride[d] - 2 * padding[d] +
                   dilation[d] * (kernel_size[d] - 1) + 1;
    max_sizes[d] = min_sizes[d] + stride[d] - 1;
  }
  for (size_t d = 0; d < D; ++d) {
    if (size[d] < min_sizes[d] || size[d] > max_sizes[d]) {
      std::vector<int64_t> spatial(input.sizes().begin() + non_spatial, input.sizes().end());
      EMBER_CHECK(false, n, ": requested an output size of ", detail::py_tuple(size), ", but valid sizes range from ",
                  detail::py_tuple(min_sizes), " to ", detail::py_tuple(max_sizes), " (for an input of ",
                  detail::py_tuple(spatial), ")");
    }
    res[d] = size[d] - min_sizes[d];
  }
  return res;
}

template <size_t D>
void ConvTransposeImpl<D>::pretty_print(std::ostream& os) const {
  const Options& o = options;
  os << name() << "(" << o.in_channels << ", " << o.out_channels << ", kernel_size=" << detail::py_tuple(kernel_size)
     << ", stride=" << detail::py_tuple(stride);
  if (!all_equal(padding, 0)) os << ", padding=" << detail::py_tuple(padding);
  if (!all_equal(dilation, 1)) os << ", dilation=" << detail::py_tuple(dilation);
  if (!all_equal(output_padding, 0)) os << ", output_padding=" << detail::py_tuple(output_padding);
  if (o.groups != 1) os << ", groups=" << o.groups;
  if (!o.bias) os << ", bias=False";
  os << ")";
}

template class ConvImpl<1>;
template class ConvImpl<2>;
template class ConvImpl<3>;
template class ConvTransposeImpl<1>;
template class ConvTransposeImpl<2>;
template class ConvTransposeImpl<3>;

}  // namespace ember::nn
