#pragma once
// Quantizer: how a quantized tensor's stored integers map to real values
// (torch's PerTensorAffineQuantizer / PerChannelAffineQuantizer). A tensor of
// dtype qint8, quint8, qint32 or quint4x2 holds one; views share it or hold an
// adjusted copy (Note [Quantized views] in core/src/ops/quantized_views.cpp).
#include <memory>

#include "ember/core/dtype.h"
#include "ember/core/tensor.h"

namespace ember {

class Quantizer {
 public:
  // Per-tensor affine: real = (q - zero_point) * scale. scale must be a
  // positive finite number and zero_point within the dtype's range.
  static std::shared_ptr<const Quantizer> per_tensor_affine(DType dtype, double scale, int64_t zero_point,
                                                            const char* op = "quantize_per_tensor");
  // Per-channel affine along `axis` (already wrapped, 0 <= axis): scales
  // (float64, 1-d) and zero_points (int64, 1-d) of equal length, one per
  // index of the axis.
  static std::shared_ptr<const Quantizer> per_channel_affine(DType dtype, Tensor scales, Tensor zero_points,
                                                             int64_t axis, const char* op = "quantize_per_channel");

  QScheme qscheme() const { return qscheme_; }
  DType dtype() const { return dtype_; }
  bool is_per_channel() const { return qscheme_ == QScheme::kPerChannelAffine; }
  double scale() const { return scale_; }
  int64_t zero_point() const { return zero_point_; }
  const Tensor& scales() const { return scales_; }            // float64, contiguous
  const Tensor& zero_points() const { return zero_points_; }  // int64, contiguous
  int64_t axis() const { return axis_; }
  // The same scheme and parameters (torch's Quantizer::equalTo).
  bool equal(const Quantizer& other) const;

 private:
  Quantizer() = default;
  QScheme qscheme_ = QScheme::kPerTensorAffine;
  DType dtype_ = DType::QUInt8;
  double scale_ = 1.0;
  int64_t zero_point_ = 0;
  Tensor scales_, zero_points_;
  int64_t axis_ = 0;
};

// The range of a quantized dtype's stored values: qint8 [-128, 127], quint8
// [0, 255], qint32 [-2^31, 2^31 - 1], quint4x2 [0, 15].
int64_t quant_min_of(DType dtype);
int64_t quant_max_of(DType dtype);

// A new quantized tensor of `sizes` (uninitialized values) holding `quantizer`
// (torch's _empty_affine_quantized / _empty_per_channel_affine_quantized).
// quint4x2 packs two values per byte along the last dim.
Tensor empty_quantized(IntArrayRef sizes, std::shared_ptr<const Quantizer> quantizer,
                       MemoryFormat format = MemoryFormat::Contiguous, Device device = kCPU);

}  // namespace ember
