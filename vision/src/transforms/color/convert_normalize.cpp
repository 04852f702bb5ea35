// normalize, convert_image_dtype, and the two fused for uint8 images:
// checks and outputs on the input's device here; the uint8 tables (Note
// [uint8 tables]) and the normalize loops behind normalize_slot and
// uint8_to_float_slot (kernels/slots/color_kernels.h, kernels/cpu/), on any
// device whose backend fills them; the other conversions are core ops.
#include <cmath>
#include <vector>

#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "kernels/slots/color_kernels.h"
#include "transforms/color/image.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(normalize_slot, NormalizeFn, "vision.normalize");
EMBER_DEFINE_SLOT(uint8_to_float_slot, NormalizeFn, "vision.uint8_to_float");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {
namespace {

using detail::image_geometry;

// torchvision's _max_value: the value that means "full intensity".
double max_value(DType dtype) {
  switch (dtype) {
    case DType::UInt8: return 255;
    case DType::Int8: return 127;
    case DType::Int16: return 32767;
    case DType::Int32: return 2147483647.0;
    case DType::Int64: return 9223372036854775807.0;  // 2^63 as a double, as Python's float()
    default: return 1;
  }
}

void check_convertible(DType dtype, const char* op, const char* which) {
  EMBER_CHECK(dtype != DType::Bool && !is_complex(dtype), op, ": the ", which,
              " dtype must be an integer or floating point type, got ", dtype);
}

// mean and std rounded to T, one value per channel, checked (as doubles:
// the kernels' slot takes them so; the rounding to T is exact both ways).
template <class T>
void per_channel(const std::vector<double>& mean, const std::vector<double>& std, int64_t channels, DType dtype,
                 std::vector<double>& m, std::vector<double>& s) {
  m.resize(static_cast<size_t>(channels));
  s.resize(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    const size_t i = static_cast<size_t>(c);
    m[i] = static_cast<T>(mean.size() == 1 ? mean[0] : mean[i]);
    s[i] = static_cast<T>(std.size() == 1 ? std[0] : std[i]);
    EMBER_CHECK(s[i] != 0, "normalize: std evaluated to zero after conversion to ", dtype, " (std[", i,
                "] = ", std.size() == 1 ? std[0] : std[i], "), leading to division by zero");
  }
}

void check_normalize_args(const Tensor& tensor, const std::vector<double>& mean, const std::vector<double>& std,
                          int64_t channels) {
  auto fits = [&](const std::vector<double>& v) {
    return v.size() == 1 || static_cast<int64_t>(v.size()) == channels;
  };
  EMBER_CHECK(fits(mean) && fits(std), "normalize: mean and std must hold one value per channel (", channels,
              ") or a single value, got ", mean.size(), " means and ", std.size(), " stds for shape ",
              tensor.sizes());
}

Tensor normalize_reduced_float(const Tensor& tensor, const std::vector<double>& mean, const std::vector<double>& std,
                               int64_t channels, bool inplace) {
  // torchvision's own steps on the 16-bit type: sub_ and div_ with one
  // rounding each.
  auto as_tensor = [&](const std::vector<double>& v) {
    Tensor t = empty({static_cast<int64_t>(v.size())}, DType::Float64);
    for (size_t i = 0; i < v.size(); ++i) t.data_ptr<double>()[i] = v[i];
    return t.to(tensor.dtype()).view({-1, 1, 1});
  };
  Tensor m = as_tensor(mean), s = as_tensor(std);
  for (int64_t c = 0; c < s.size(0); ++c)
    EMBER_CHECK(s.select(0, c).item<double>() != 0, "normalize: std evaluated to zero after conversion to ",
                tensor.dtype(), " (std[", c, "] = ", std[static_cast<size_t>(c)], "), leading to division by zero");
  (void)channels;
  Tensor t = inplace ? tensor : tensor.clone();
  t -= m.to(t.device());
  t /= s.to(t.device());
  return t;
}

}  // namespace

Tensor normalize(const Tensor& tensor, const std::vector<double>& mean, const std::vector<double>& std, bool inplace) {
  const auto g = image_geometry(tensor, "normalize", 3);
  EMBER_CHECK(tensor.is_floating_point(), "normalize: expected a floating point tensor, got ", tensor.dtype(),
              " (convert uint8 images with convert_image_dtype first)");
  check_normalize_args(tensor, mean, std, g.channels);
  if (detail::is_reduced_float(tensor.dtype())) return normalize_reduced_float(tensor, mean, std, g.channels, inplace);
  detail::check_kernel(normalize_slot, tensor, "normalize");
  std::vector<double> m, s;
  if (tensor.dtype() == DType::Float32) per_channel<float>(mean, std, g.channels, tensor.dtype(), m, s);
  else per_channel<double>(mean, std, g.channels, tensor.dtype(), m, s);
  if (inplace) {
    Tensor self = tensor;
    normalize_slot(tensor.device())(self, tensor, m, s);
    tensor.bump_version();
    return tensor;
  }
  Tensor out = empty(tensor.sizes(), tensor.options());
  normalize_slot(tensor.device())(out, tensor, m, s);
  return out;
}

Tensor convert_image_dtype(const Tensor& image, DType dtype) {
  EMBER_CHECK(image.defined(), "convert_image_dtype: the image tensor is undefined");
  check_convertible(image.dtype(), "convert_image_dtype", "input");
  check_convertible(dtype, "convert_image_dtype", "requested");
  const DType from = image.dtype();
  if (from == dtype) return image;
  const bool from_float = is_floating_point(from), to_float = is_floating_point(dtype);
  if (from_float && to_float) return image.to(dtype);

  if (from_float) {
    // float -> int: values in [0, 1] spread evenly over the integers (only
    // exactly 1.0 maps to the max): x * (max + 1 - eps), truncated.
    EMBER_CHECK(!((from == DType::Float32 && (dtype == DType::Int32 || dtype == DType::Int64)) ||
                  (from == DType::Float64 && dtype == DType::Int64)),
                "convert_image_dtype: the cast from ", from, " to ", dtype, " cannot be performed safely");
    const double eps = 1e-3;
    return image.mul(Scalar(max_value(dtype) + 1.0 - eps)).to(dtype);
  }

  const double input_max = max_value(from);
  if (to_float) {
    if (from == DType::UInt8 && uint8_to_float_slot.supports(image.device(), dtype)) {
      Tensor out = empty(image.sizes(), image.options().dtype(dtype));
      uint8_to_float_slot(image.device())(out, image, {}, {});
      return out;
    }
    return image.to(dtype).div(Scalar(input_max));
  }

  // int -> int: shift by the ratio of the ranges (powers of two), computed as
  // torchvision does, in Python floats.
  const double output_max = max_value(dtype);
  if (input_max > output_max) {
    const auto factor = static_cast<int64_t>(std::floor((input_max + 1) / (output_max + 1)));
    return floor_divide(image, Scalar(factor)).to(dtype);
  }
  const auto factor = static_cast<int64_t>(std::floor((output_max + 1) / (input_max + 1)));
  return image.to(dtype).mul(Scalar(factor));
}

Tensor convert_image_dtype_normalize(const Tensor& image, const std::vector<double>& mean,
                                     const std::vector<double>& std, DType dtype) {
  const char* op = "convert_image_dtype_normalize";
  const auto g = image_geometry(image, op, 3);
  EMBER_CHECK(is_floating_point(dtype), op, ": the output dtype must be floating point, got ", dtype);
  if (image.dtype() != DType::UInt8 || (dtype != DType::Float32 && dtype != DType::Float64))
    return normalize(convert_image_dtype(image, dtype), mean, std);
  check_normalize_args(image, mean, std, g.channels);
  std::vector<double> m, s;
  if (dtype == DType::Float32) per_channel<float>(mean, std, g.channels, dtype, m, s);
  else per_channel<double>(mean, std, g.channels, dtype, m, s);
  // A device without the fused kernel takes the two steps.
  if (!uint8_to_float_slot.supports(image.device(), dtype))
    return normalize(convert_image_dtype(image, dtype), mean, std);
  Tensor out = empty(image.sizes(), image.options().dtype(dtype));
  uint8_to_float_slot(image.device())(out, image, m, s);
  return out;
}

}  // namespace ember::vision::transforms::functional
