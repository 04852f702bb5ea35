// normalize, convert_image_dtype, and the two fused for uint8 images.
//
// Note [uint8 tables]
// A function of one uint8 value has 256 results: the kernels compute them
// once, with the exact float steps torchvision takes, and then look them up.
// The lookup equals the two-step computation bit for bit, reads strided
// inputs (the interleaved [C, H, W] view a JPEG decodes to) without a copy,
// and is what makes ToTensor + Normalize one pass over the bytes.
#include <array>
#include <cmath>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "transforms/color/image.h"

namespace ember::vision::transforms::functional {
namespace {

using detail::for_each_run;
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

// One table per channel: table[c][v] = the float result for uint8 value v.
template <class T>
using Tables = std::vector<std::array<T, 256>>;

// o[x] = table[src[x]] for a contiguous row of n values.
template <class T>
void lookup_row(const uint8_t* __restrict src, const T* __restrict table, T* __restrict o, int64_t n) {
  int64_t x = 0;
#if defined(__AVX2__)
  // Eight lookups per gather: about 1.5x the scalar loop on a 224x224 crop.
  if constexpr (std::is_same_v<T, float>) {
    for (; x + 8 <= n; x += 8) {
      const __m256i index = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + x)));
      _mm256_storeu_ps(o + x, _mm256_i32gather_ps(table, index, 4));
    }
  }
#endif
  for (; x < n; ++x) o[x] = table[src[x]];
}

// Writes out[..., c, h, :] = table[c][img[..., c, h, :]] for a uint8 image of
// any strides into the contiguous `out`.
template <class T>
void apply_tables(const Tensor& img, const Tables<T>& tables, Tensor& out) {
  const int64_t plane = img.size(-2) * img.size(-1);
  const int64_t channels = static_cast<int64_t>(tables.size());
  T* dst = out.data_ptr<T>();
  for_each_run<const uint8_t>(img, [&](int64_t index, const uint8_t* src, int64_t stride, int64_t n) {
    const T* table = tables[static_cast<size_t>(channels == 1 ? 0 : (index / plane) % channels)].data();
    T* o = dst + index;
    if (stride == 1) {
      lookup_row<T>(src, table, o, n);
    } else {
      for (int64_t w = 0; w < n; ++w) o[w] = table[src[w * stride]];
    }
  });
}

// convert_image_dtype(uint8 -> T): v / 255 in T, as `image.to(T) / 255.0`.
template <class T>
Tensor uint8_to_float(const Tensor& image, DType dtype) {
  Tables<T> tables(1);
  for (int v = 0; v < 256; ++v) tables[0][static_cast<size_t>(v)] = static_cast<T>(v) / static_cast<T>(255);
  Tensor out = empty(image.sizes(), dtype);
  apply_tables<T>(image, tables, out);
  return out;
}

// mean and std rounded to T, one value per channel, checked.
template <class T>
void per_channel(const std::vector<double>& mean, const std::vector<double>& std, int64_t channels, DType dtype,
                 std::vector<T>& m, std::vector<T>& s) {
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

// (x - m) / s over a run; `in` and `out` may be the same contiguous memory
// (in place), so no restrict here.
template <class T>
void normalize_run(const T* in, int64_t stride, T* out, int64_t out_stride, int64_t n, T m, T s) {
  if (stride == 1 && out_stride == 1) {
    for (int64_t w = 0; w < n; ++w) out[w] = (in[w] - m) / s;
  } else {
    for (int64_t w = 0; w < n; ++w) out[w * out_stride] = (in[w * stride] - m) / s;
  }
}

// (x - m[c]) / s[c] for every element of `src` (any strides) into the
// contiguous `dst`, or into src itself when dst is null (in place, any strides).
template <class T>
void normalize_values(const Tensor& src, T* dst, const std::vector<T>& m, const std::vector<T>& s) {
  const int64_t plane = src.size(-2) * src.size(-1);
  const int64_t channels = static_cast<int64_t>(m.size());
  for_each_run<T>(src, [&](int64_t index, T* in, int64_t stride, int64_t n) {
    const size_t c = static_cast<size_t>((index / plane) % channels);
    if (dst) {
      normalize_run<T>(in, stride, dst + index, 1, n, m[c], s[c]);
    } else {
      normalize_run<T>(in, stride, in, stride, n, m[c], s[c]);
    }
  });
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
  t -= m;
  t /= s;
  return t;
}

}  // namespace

Tensor normalize(const Tensor& tensor, const std::vector<double>& mean, const std::vector<double>& std, bool inplace) {
  const auto g = image_geometry(tensor, "normalize", 3);
  EMBER_CHECK(tensor.is_floating_point(), "normalize: expected a floating point tensor, got ", tensor.dtype(),
              " (convert uint8 images with convert_image_dtype first)");
  check_normalize_args(tensor, mean, std, g.channels);
  if (detail::is_reduced_float(tensor.dtype())) return normalize_reduced_float(tensor, mean, std, g.channels, inplace);
  return detail::dispatch_image(tensor.dtype(), "normalize", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, uint8_t>) {
      EMBER_FAIL("normalize: unreachable");
    } else {
      std::vector<T> m, s;
      per_channel<T>(mean, std, g.channels, tensor.dtype(), m, s);
      if (inplace) {
        normalize_values<T>(tensor, nullptr, m, s);
        tensor.bump_version();
        return tensor;
      }
      Tensor out = empty(tensor.sizes(), tensor.dtype());
      normalize_values<T>(tensor, out.data_ptr<T>(), m, s);
      return out;
    }
  });
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
    if (from == DType::UInt8 && image.is_cpu()) {
      if (dtype == DType::Float32) return uint8_to_float<float>(image, dtype);
      if (dtype == DType::Float64) return uint8_to_float<double>(image, dtype);
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
  auto fused = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> m, s;
    per_channel<T>(mean, std, g.channels, dtype, m, s);
    Tables<T> tables(static_cast<size_t>(g.channels));
    for (size_t c = 0; c < tables.size(); ++c)
      for (int v = 0; v < 256; ++v) {
        const T x = static_cast<T>(v) / static_cast<T>(255);  // convert_image_dtype
        tables[c][static_cast<size_t>(v)] = (x - m[c]) / s[c];  // normalize: sub_ then div_
      }
    Tensor out = empty(image.sizes(), dtype);
    apply_tables<T>(image, tables, out);
    return out;
  };
  return dtype == DType::Float32 ? fused(float{}) : fused(double{});
}

}  // namespace ember::vision::transforms::functional
