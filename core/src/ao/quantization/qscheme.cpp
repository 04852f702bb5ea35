#include "ember/ao/quantization/qscheme.h"

#include "ember/core/error.h"

namespace ember::ao::quantization {

const char* qdtype_name(QDType dtype) {
  switch (dtype) {
    case QDType::kQUInt8: return "torch.quint8";
    case QDType::kQInt8: return "torch.qint8";
    case QDType::kQInt32: return "torch.qint32";
    case QDType::kQUInt4x2: return "torch.quint4x2";
    case QDType::kFloat16: return "torch.float16";
    case QDType::kFloat32: return "torch.float32";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, QDType dtype) { return os << qdtype_name(dtype); }

bool is_per_tensor(QScheme s) { return s == QScheme::kPerTensorAffine || s == QScheme::kPerTensorSymmetric; }
bool is_per_channel(QScheme s) { return !is_per_tensor(s); }
bool is_symmetric(QScheme s) { return s == QScheme::kPerTensorSymmetric || s == QScheme::kPerChannelSymmetric; }
bool is_float_qparams(QScheme s) { return s == QScheme::kPerChannelAffineFloatQParams; }
bool is_quantized(QDType d) { return d != QDType::kFloat16 && d != QDType::kFloat32; }

std::pair<int64_t, int64_t> qdtype_range(QDType dtype) {
  switch (dtype) {
    case QDType::kQUInt8: return {0, 255};
    case QDType::kQInt8: return {-128, 127};
    case QDType::kQInt32: return {INT64_C(-2147483648), INT64_C(2147483647)};
    case QDType::kQUInt4x2: return {0, 15};
    default: break;
  }
  EMBER_CHECK(false, "quantization: ", dtype, " is not a quantized dtype (it has no integer range)");
  return {0, 0};
}

namespace {
// Python's floor division (reduce_range halves a custom range this way).
int64_t floor_div2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }
}  // namespace

std::pair<int64_t, int64_t> calculate_qmin_qmax(std::optional<int64_t> quant_min, std::optional<int64_t> quant_max,
                                                QDType dtype, bool reduce_range, const std::string& who) {
  EMBER_CHECK(is_quantized(dtype), who, ": dtype ", dtype,
              " has no integer range (expected torch.quint8, torch.qint8, torch.qint32 or torch.quint4x2)");
  EMBER_CHECK(quant_min.has_value() == quant_max.has_value(), who,
              ": give both quant_min and quant_max or neither (got only ", quant_min ? "quant_min" : "quant_max", ")");
  if (quant_min) {
    const int64_t lo = *quant_min, hi = *quant_max;
    EMBER_CHECK(lo <= 0 && 0 <= hi, who, ": the quantization range [quant_min, quant_max] = [", lo, ", ", hi,
                "] must include 0");
    EMBER_CHECK(lo < hi, who, ": quant_min (", lo, ") must be less than quant_max (", hi, ")");
    const int64_t len = hi - lo + 1;
    if (dtype == QDType::kQInt8)
      EMBER_CHECK(len <= 256, who, ": the range [", lo, ", ", hi, "] has ", len,
                  " values, more than qint8's 256");
    if (dtype == QDType::kQInt32)
      EMBER_CHECK(len <= (INT64_C(1) << 31), who, ": the range [", lo, ", ", hi, "] has ", len,
                  " values, more than 2^31");
    if (reduce_range) return {floor_div2(lo), floor_div2(hi)};
    return {lo, hi};
  }
  switch (dtype) {
    case QDType::kQInt8: return reduce_range ? std::pair<int64_t, int64_t>{-64, 63} : std::pair<int64_t, int64_t>{-128, 127};
    case QDType::kQUInt8: return reduce_range ? std::pair<int64_t, int64_t>{0, 127} : std::pair<int64_t, int64_t>{0, 255};
    case QDType::kQInt32: return qdtype_range(QDType::kQInt32);
    default: return {0, 15};
  }
}

}  // namespace ember::ao::quantization
