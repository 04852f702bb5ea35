// Views and printing of quantized tensors.
#include <charconv>
#include <sstream>

#include "ember/ops/factories.h"
#include "ember/ops/quantize.h"
#include "ops/op_utils.h"
#include "ops/quantized_tensor.h"

namespace ember {

// Note [Quantized views]
// A view shares its base's quantizer. For per-channel tensors the channel
// axis follows the view: permute/transpose move it, select on another dim
// shifts it, select on the axis leaves a per-tensor view with that channel's
// scale and zero point (as PyTorch), slice on the axis slices the scales,
// unsqueeze/squeeze/view/reshape keep it where a dim of the same size starts
// at the same element count, expand shifts it by the new leading dims.
// PyTorch 1.13 refuses transpose/permute/expand of per-channel tensors and
// keeps the old axis number through view/select (a wrong axis after
// flatten or select of a later dim); Ember follows the channel instead. Views
// that mix channels (as_strided, unfold, diagonal) are refused.

namespace {
const Quantizer* per_channel(const Tensor& base) {
  const auto& q = base.impl()->quantizer();
  return q && q->is_per_channel() ? q.get() : nullptr;
}
void set_axis(const Tensor& view, const Quantizer& q, int64_t axis, const Tensor& scales, const Tensor& zero_points) {
  view.impl()->set_quantizer(Quantizer::per_channel_affine(q.dtype(), scales, zero_points, axis));
}
void check_4bit(const Tensor& base, const char* op) {
  EMBER_CHECK(base.dtype() != DType::QUInt4x2, op, ": views of quint4x2 tensors are not supported");
}
}  // namespace

void qview_check_supported(const Tensor& base, const char* op, bool per_tensor_ok) {
  if (!base.is_quantized()) return;
  check_4bit(base, op);
  EMBER_CHECK(per_tensor_ok && !per_channel(base), op, ": not supported on ", base.dtype(), " tensors quantized ",
              base.qscheme(), " (dequantize() first)");
}

void qview_reshaped(const Tensor& view, const Tensor& base, const char* op) {
  if (!base.is_quantized()) return;
  check_4bit(base, op);
  const Quantizer* q = per_channel(base);
  if (!q) return;
  const int64_t a = q->axis(), channels = base.size(a);
  int64_t before = 1;
  for (int64_t d = 0; d < a; ++d) before *= base.size(d);
  int64_t prefix = 1;
  for (int64_t j = 0; j < view.dim(); ++j) {
    if (prefix == before && view.size(j) == channels) {
      if (j != a) set_axis(view, *q, j, q->scales(), q->zero_points());
      return;
    }
    prefix *= view.size(j);
  }
  EMBER_FAIL(op, ": the view of sizes ", view.sizes(), " splits or merges the channel axis ", a, " (size ", channels,
             ") of a per-channel quantized tensor of sizes ", base.sizes(), "; dequantize() first");
}

void qview_permuted(const Tensor& view, const Tensor& base, IntArrayRef dims) {
  if (!base.is_quantized()) return;
  check_4bit(base, "permute");
  const Quantizer* q = per_channel(base);
  if (!q) return;
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i)
    if ((dims[i] < 0 ? dims[i] + base.dim() : dims[i]) == q->axis()) {
      if (i != q->axis()) set_axis(view, *q, i, q->scales(), q->zero_points());
      return;
    }
}

void qview_selected(const Tensor& view, const Tensor& base, int64_t dim, int64_t index) {
  if (!base.is_quantized()) return;
  check_4bit(base, "select");
  const Quantizer* q = per_channel(base);
  if (!q) return;
  if (dim == q->axis()) {
    view.impl()->set_quantizer(Quantizer::per_tensor_affine(q->dtype(), q->scales().data_ptr<double>()[index],
                                                            q->zero_points().data_ptr<int64_t>()[index], "select"));
  } else if (dim < q->axis()) {
    set_axis(view, *q, q->axis() - 1, q->scales(), q->zero_points());
  }
}

void qview_sliced(const Tensor& view, const Tensor& base, int64_t dim, int64_t start, int64_t step) {
  if (!base.is_quantized()) return;
  check_4bit(base, "slice");
  const Quantizer* q = per_channel(base);
  if (!q || dim != q->axis()) return;
  const int64_t n = view.size(dim);
  Tensor scales = n ? q->scales().slice(0, start, start + (n - 1) * step + 1, step) : q->scales().slice(0, 0, 0);
  Tensor zps = n ? q->zero_points().slice(0, start, start + (n - 1) * step + 1, step) : q->zero_points().slice(0, 0, 0);
  set_axis(view, *q, dim, scales, zps);
}

void qview_expanded(const Tensor& view, const Tensor& base) {
  if (!base.is_quantized()) return;
  check_4bit(base, "expand");
  const Quantizer* q = per_channel(base);
  if (!q) return;
  const int64_t axis = q->axis() + view.dim() - base.dim();
  EMBER_CHECK(view.size(axis) == base.size(q->axis()), "expand: cannot expand the channel axis ", q->axis(),
              " of a per-channel quantized tensor");
  if (axis != q->axis()) set_axis(view, *q, axis, q->scales(), q->zero_points());
}

// ---- printing ----
namespace {
// Python's repr of a float: the shortest digits that round-trip, in
// scientific notation when the exponent is below -4 or at least 16.
std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  const size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  const int exp = std::stoi(sci.substr(e + 1));
  const bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string out;
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  } else if (exp < 0) {
    out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else {
    if (static_cast<int>(digits.size()) <= exp + 1) {
      out = digits + std::string(static_cast<size_t>(exp + 1 - static_cast<int>(digits.size())), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exp + 1)) + "." + digits.substr(static_cast<size_t>(exp + 1));
    }
  }
  return neg ? "-" + out : out;
}

std::string to_string(const Tensor& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}
}  // namespace

void print_quantized(std::ostream& os, const Tensor& t) {
  // PyTorch's _str_intern for quantized tensors: the dequantized values, then
  // size, dtype, scheme and parameters, wrapped at the line width.
  // The values part of the float printer's output ("tensor(" values [suffixes] ")").
  Tensor values = t.dequantize();
  std::string values_str;
  if (values.numel() == 0) {
    values_str = "[]";
  } else {
    const std::string s = to_string(values);
    const size_t end = s.rfind(']');
    values_str = end == std::string::npos ? s.substr(7, s.size() - 8) : s.substr(7, end - 6);
  }
  std::vector<std::string> suffixes;
  std::string size = "size=(";
  for (int64_t d = 0; d < t.dim(); ++d) size += (d ? ", " : "") + std::to_string(t.size(d));
  size += t.dim() == 1 ? ",)" : ")";
  suffixes.push_back(size);
  suffixes.push_back("dtype=" + std::string(dtype_name(t.dtype())));
  suffixes.push_back("quantization_scheme=" + std::string(qscheme_name(t.qscheme())));
  if (t.qscheme() == QScheme::kPerTensorAffine) {
    suffixes.push_back("scale=" + python_float(t.q_scale()));
    suffixes.push_back("zero_point=" + std::to_string(t.q_zero_point()));
  } else {
    suffixes.push_back("scale=" + to_string(t.q_per_channel_scales()));
    suffixes.push_back("zero_point=" + to_string(t.q_per_channel_zero_points()));
    suffixes.push_back("axis=" + std::to_string(t.q_per_channel_axis()));
  }
  std::string out = "tensor(" + values_str;
  const int indent = 7;
  const int width = printoptions().linewidth;
  // Python's len(s) - s.rfind('\n') + 1 (rfind gives -1 when there is none).
  const size_t nl = out.rfind('\n');
  int64_t last_line = static_cast<int64_t>(out.size()) + (nl == std::string::npos ? 2 : 1 - static_cast<int64_t>(nl));
  for (const std::string& suffix : suffixes) {
    const int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line + len + 2 > width) {
      out += ",\n" + std::string(indent, ' ') + suffix;
      last_line = indent + len;
    } else {
      out += ", " + suffix;
      last_line += len + 2;
    }
  }
  os << out << ')';
}

}  // namespace ember
