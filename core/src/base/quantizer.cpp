#include "ember/core/quantizer.h"

#include <cmath>
#include <limits>

namespace ember {

// Note [Quantized tensors]
// A quantized tensor (dtype qint8, quint8, qint32 or quint4x2) stores
// integers q and a Quantizer that maps them to real values, as PyTorch's
// QTensorImpl: per-tensor affine, real = (q - zero_point) * scale, or
// per-channel affine, where index c of dim `axis` has its own scale and
// zero_point. The quantizer is shared (immutable) between a tensor and its
// views; a view that moves, slices or drops the channel axis holds an adjusted
// copy (Note [Quantized views]). Ops compute on quantized tensors only where
// they say so (quantize/dequantize, int_repr, copies, views, printing,
// serialization, and the kernels of core/src/ao/nn/quantized/); the dtype
// dispatch masks (kMaskAll and its parts) leave the quantized dtypes out and
// allocation refuses them without a quantizer, so every other op raises an
// ember::Error naming itself and the dtype.

int64_t quant_min_of(DType dtype) {
  switch (dtype) {
    case DType::QInt8: return std::numeric_limits<int8_t>::min();
    case DType::QUInt8: return 0;
    case DType::QInt32: return std::numeric_limits<int32_t>::min();
    case DType::QUInt4x2: return 0;
    default: EMBER_FAIL("quant_min: ", dtype, " is not a quantized dtype");
  }
}

int64_t quant_max_of(DType dtype) {
  switch (dtype) {
    case DType::QInt8: return std::numeric_limits<int8_t>::max();
    case DType::QUInt8: return std::numeric_limits<uint8_t>::max();
    case DType::QInt32: return std::numeric_limits<int32_t>::max();
    case DType::QUInt4x2: return 15;
    default: EMBER_FAIL("quant_max: ", dtype, " is not a quantized dtype");
  }
}

namespace {
void check_qdtype(DType dtype, const char* op) {
  EMBER_CHECK(is_quantized(dtype), op, ": dtype must be a quantized dtype (qint8, quint8, qint32, quint4x2), got ",
              dtype);
}

// Quantizing multiplies by 1 / float(scale) (PyTorch's quantize_val): the
// scale must be positive, and both it and its inverse finite in float32.
void check_scale(double scale, const char* op, const char* what = "scale") {
  const float f = static_cast<float>(scale);
  EMBER_CHECK(std::isfinite(scale) && scale > 0 && f > 0 && std::isfinite(f) && std::isfinite(1.0f / f), op, ": ",
              what, " must be a positive finite number whose inverse is finite in float32, got ", scale);
}

void check_zero_point(int64_t zero_point, DType dtype, const char* op) {
  EMBER_CHECK(zero_point >= quant_min_of(dtype) && zero_point <= quant_max_of(dtype), op, ": zero_point ",
              zero_point, " is outside the range [", quant_min_of(dtype), ", ", quant_max_of(dtype), "] of ", dtype);
}
}  // namespace

std::shared_ptr<const Quantizer> Quantizer::per_tensor_affine(DType dtype, double scale, int64_t zero_point,
                                                              const char* op) {
  check_qdtype(dtype, op);
  check_scale(scale, op);
  check_zero_point(zero_point, dtype, op);
  std::shared_ptr<Quantizer> q(new Quantizer());
  q->qscheme_ = QScheme::kPerTensorAffine;
  q->dtype_ = dtype;
  q->scale_ = scale;
  q->zero_point_ = zero_point;
  return q;
}

std::shared_ptr<const Quantizer> Quantizer::per_channel_affine(DType dtype, Tensor scales, Tensor zero_points,
                                                               int64_t axis, const char* op) {
  check_qdtype(dtype, op);
  EMBER_CHECK(dtype != DType::QUInt4x2, op, ": per-channel quantization of quint4x2 is not supported");
  EMBER_CHECK(scales.defined() && zero_points.defined(), op, ": scales and zero_points must be defined");
  EMBER_CHECK(scales.dim() == 1 && zero_points.dim() == 1, op, ": scales and zero_points must be 1-d, got ",
              scales.dim(), "-d and ", zero_points.dim(), "-d");
  EMBER_CHECK(scales.numel() == zero_points.numel(), op, ": ", scales.numel(), " scales but ", zero_points.numel(),
              " zero_points");
  EMBER_CHECK(scales.is_floating_point(), op, ": scales must be a floating point tensor, got ", scales.dtype());
  EMBER_CHECK(is_integral(zero_points.dtype()) || zero_points.is_floating_point(), op,
              ": zero_points must be an integer (or floating point) tensor, got ", zero_points.dtype());
  EMBER_CHECK(axis >= 0, op, ": axis must be non-negative once wrapped, got ", axis);
  std::shared_ptr<Quantizer> q(new Quantizer());
  q->qscheme_ = QScheme::kPerChannelAffine;
  q->dtype_ = dtype;
  q->scales_ = scales.cpu().to(kFloat64).contiguous().clone();
  q->zero_points_ = zero_points.cpu().to(kInt64).contiguous().clone();
  q->axis_ = axis;
  const double* s = q->scales_.data_ptr<double>();
  const int64_t* z = q->zero_points_.data_ptr<int64_t>();
  for (int64_t c = 0; c < q->scales_.numel(); ++c) {
    check_scale(s[c], op, "every scale");
    check_zero_point(z[c], dtype, op);
  }
  return q;
}

bool Quantizer::equal(const Quantizer& other) const {
  if (qscheme_ != other.qscheme_ || dtype_ != other.dtype_) return false;
  if (!is_per_channel()) return scale_ == other.scale_ && zero_point_ == other.zero_point_;
  return axis_ == other.axis_ && scales_.equal(other.scales_) && zero_points_.equal(other.zero_points_);
}

}  // namespace ember
