#pragma once
// Quantized dtypes and quantization schemes as the eager-mode workflow names
// them (torch.quint8, torch.per_tensor_affine, ...), and torch's rule for the
// integer range [quant_min, quant_max] an observer targets
// (torch.ao.quantization.utils.calculate_qmin_qmax, PyTorch 1.13).
//
// The workflow side (observers, fake quantization, QConfig) only needs these
// names and ranges; quantized tensors themselves are a separate part of the
// library.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "ember/core/dtype.h"

namespace ember::ao::quantization {

// The quantized dtype an observer computes parameters for (torch's names).
enum class QDType : uint8_t { kQUInt8, kQInt8, kQInt32, kQUInt4x2, kFloat16, kFloat32 };

// The quantization scheme is core's (ember::QScheme, dtype.h: also what a
// quantized tensor's quantizer holds); printing it gives "per_tensor_affine".
using QScheme = ember::QScheme;

const char* qdtype_name(QDType dtype);    // "torch.quint8"
std::ostream& operator<<(std::ostream& os, QDType dtype);

bool is_per_tensor(QScheme scheme);
bool is_per_channel(QScheme scheme);
bool is_symmetric(QScheme scheme);
bool is_float_qparams(QScheme scheme);
// kQUInt8, kQInt8, kQInt32, kQUInt4x2 (the dtypes with an integer range).
bool is_quantized(QDType dtype);
// The full integer range of a quantized dtype (torch.iinfo): quint8 [0, 255],
// qint8 [-128, 127], qint32 [-2^31, 2^31-1], quint4x2 [0, 15].
std::pair<int64_t, int64_t> qdtype_range(QDType dtype);

// torch.ao.quantization.utils.calculate_qmin_qmax: the range the observer uses.
// With a custom range (both given) the range is checked (it must hold 0,
// quant_min < quant_max, and at most 256 values for qint8 / 2^31 for qint32)
// and halved (floor division) by reduce_range; without one it is the dtype's
// 8-bit default (qint8 [-128, 127] or [-64, 63] reduced, quint8 [0, 255] or
// [0, 127] reduced, qint32 full, quint4x2 [0, 15]). `who` names the caller in
// errors.
std::pair<int64_t, int64_t> calculate_qmin_qmax(std::optional<int64_t> quant_min, std::optional<int64_t> quant_max,
                                                QDType dtype, bool reduce_range, const std::string& who);

}  // namespace ember::ao::quantization
