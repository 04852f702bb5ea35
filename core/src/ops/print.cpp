// Printing like Python's torch: tensor([[1.0000, 2.5000], ...], dtype=float64).
// Formatting follows torch/_tensor_str.py: integer-valued floats print as "1.",
// scientific notation when values span more than 1e3 or exceed 1e8 or go below
// 1e-4, every element padded to the widest, and tensors with more than
// `threshold` elements summarized with `edgeitems` per end.
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "ember/ops/factories.h"
#include "ops/op_utils.h"
#include "ops/conj_views.h"
#include "ops/quantized_tensor.h"

namespace ember {

namespace {
PrintOptions g_print_options;

struct Formatter {
  bool floating = false, boolean = false;
  bool int_mode = false, sci_mode = false;
  int precision = 4;
  size_t width = 1;

  std::string real(double v) const {
    if (boolean) return v != 0 ? "True" : "False";
    if (!floating) return std::to_string(static_cast<long long>(v));
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    if (sci_mode) std::snprintf(buf, sizeof buf, "%.*e", precision, v);
    else if (int_mode) std::snprintf(buf, sizeof buf, "%.0f.", v);
    else std::snprintf(buf, sizeof buf, "%.*f", precision, v);
    return buf;
  }
  std::string padded(double v) const {
    std::string s = real(v);
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
  }
};

// As torch/_tensor_str.py: a complex tensor gets one formatter for its real
// parts and one for its imaginary parts; the real part is padded to its
// column width, the imaginary part is not, and carries its own sign.
struct Formatters {
  Formatter re;
  std::optional<Formatter> im;  // complex tensors
  std::string element(double r, double i) const {
    if (!im) return re.padded(r);
    std::string is = im->real(i);
    if (is[0] != '-') is.insert(0, 1, '+');
    return re.padded(r) + is + "j";
  }
  // Characters an element takes in a row, with the ", " after it.
  size_t element_length() const { return re.width + 2 + (im ? im->width + 1 : 0); }
};

// Flat list of the values that will be shown (respecting summarization).
void collect_shown(const Tensor& t, bool summarize, int64_t edge, std::vector<Tensor>& out) {
  if (t.dim() == 0) {
    out.push_back(t);
    return;
  }
  const int64_t n = t.size(0);
  if (summarize && n > 2 * edge) {
    for (int64_t i = 0; i < edge; ++i) collect_shown(t.select(0, i), summarize, edge, out);
    for (int64_t i = n - edge; i < n; ++i) collect_shown(t.select(0, i), summarize, edge, out);
  } else {
    for (int64_t i = 0; i < n; ++i) collect_shown(t.select(0, i), summarize, edge, out);
  }
}

// values: the shown values (of a real tensor, or the real or imaginary parts
// of a complex one) as float64; dtype: the tensor's (or its parts') dtype.
Formatter make_formatter(const Tensor& values, DType dtype) {
  Formatter f;
  f.precision = g_print_options.precision;
  f.boolean = dtype == kBool;
  f.floating = is_floating_point(dtype) || is_complex(dtype);
  std::vector<double> shown;
  const int64_t n = values.numel();
  const double* p = values.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i) shown.push_back(p[i]);
  if (f.floating) {
    // As torch/_tensor_str.py: the mode and the column width come from the
    // finite non-zero values only; zeros, nan and inf are padded to that width.
    std::vector<double> finite;
    for (double v : shown)
      if (std::isfinite(v) && v != 0) finite.push_back(std::abs(v));
    if (finite.empty()) {
      f.int_mode = true;
      return f;
    }
    bool all_int = true;
    double max_abs = 0, min_abs = INFINITY;
    for (double a : finite) {
      if (a != std::ceil(a)) all_int = false;
      max_abs = std::max(max_abs, a);
      min_abs = std::min(min_abs, a);
    }
    f.int_mode = all_int;
    f.sci_mode = max_abs / min_abs > 1000.0 || max_abs > 1e8 || (!all_int && min_abs < 1e-4);
    for (double v : shown)
      if (std::isfinite(v) && v != 0) f.width = std::max(f.width, f.real(v).size());
    return f;
  }
  for (double v : shown) f.width = std::max(f.width, f.real(v).size());
  return f;
}

void print_rec(std::ostream& os, const Tensor& t, const Formatters& f, bool summarize, int64_t edge,
               int indent, const Tensor& re, const Tensor& im) {
  if (t.dim() == 0) {
    os << f.element(re.item<double>(), im.defined() ? im.item<double>() : 0.0);
    return;
  }
  const int64_t n = t.size(0);
  std::vector<int64_t> idx;
  bool elided = summarize && n > 2 * edge;
  if (elided) {
    for (int64_t i = 0; i < edge; ++i) idx.push_back(i);
    idx.push_back(-1);
    for (int64_t i = n - edge; i < n; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < n; ++i) idx.push_back(i);
  }
  os << '[';
  if (t.dim() == 1) {
    // Wrap rows at the line width like Python.
    const size_t elem_len = f.element_length();
    const size_t per_line = std::max<size_t>(1, (g_print_options.linewidth - indent) / elem_len);
    size_t on_line = 0;
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k) {
        os << ',';
        if (++on_line >= per_line) {
          os << '\n' << std::string(indent + 1, ' ');
          on_line = 0;
        } else {
          os << ' ';
        }
      }
      if (idx[k] < 0) {
        os << " ...";  // torch's 1-d elision has a leading space
        continue;
      }
      double r = re.select(0, idx[k]).item<double>();
      double i = im.defined() ? im.select(0, idx[k]).item<double>() : 0.0;
      os << f.element(r, i);
    }
  } else {
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k) os << ',' << std::string(t.dim() - 1, '\n') << std::string(indent + 1, ' ');
      if (idx[k] < 0) {
        os << "...";
        continue;
      }
      print_rec(os, t.select(0, idx[k]), f, summarize, edge, indent + 1, re.select(0, idx[k]),
                im.defined() ? im.select(0, idx[k]) : Tensor());
    }
  }
  os << ']';
}
}  // namespace

void set_printoptions(const PrintOptions& options) { g_print_options = options; }
const PrintOptions& printoptions() { return g_print_options; }

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  if (t.is_quantized()) {
    print_quantized(os, t.cpu());
    return os;
  }
  // Conjugate/negative views print their values (Note [Conjugate bit]).
  const Tensor cpu = resolve_bits(t.cpu());
  const bool summarize = cpu.numel() > g_print_options.threshold;
  const int64_t edge = g_print_options.edgeitems;
  Tensor re = cpu.is_complex() ? cpu.real().to(kFloat64) : cpu.to(kFloat64);
  Tensor im = cpu.is_complex() ? cpu.imag().to(kFloat64) : Tensor();
  auto shown_values = [&](const Tensor& part) {
    std::vector<Tensor> shown;
    collect_shown(part, summarize, edge, shown);
    Tensor values = empty({static_cast<int64_t>(shown.size())}, kFloat64);
    for (size_t i = 0; i < shown.size(); ++i)
      values.data_ptr<double>()[i] = *static_cast<const double*>(shown[i].data_ptr());
    return values;
  };
  Formatters f;
  f.re = make_formatter(shown_values(re), cpu.is_complex() ? to_real_dtype(cpu.dtype()) : cpu.dtype());
  if (im.defined()) f.im = make_formatter(shown_values(im), to_real_dtype(cpu.dtype()));
  os << "tensor(";
  if (cpu.numel() == 0) {
    os << "[]";
  } else {
    print_rec(os, cpu, f, summarize, edge, 7, re, im);
  }
  if (cpu.numel() == 0 && cpu.dim() != 1) {
    // Python's tuple spelling: size=(0, 3).
    os << ", size=(";
    for (int64_t d = 0; d < cpu.dim(); ++d) os << (d ? ", " : "") << cpu.size(d);
    os << ')';
  }
  // int64 and bool go unnamed only when values show them; an empty tensor has none.
  const bool default_dtype_shown =
      cpu.dtype() == default_dtype() ||
      (cpu.numel() != 0 && (cpu.dtype() == kInt64 || cpu.dtype() == kBool ||
                            (cpu.dtype() == kComplex64 && default_dtype() == kFloat32)));
  if (!default_dtype_shown) os << ", dtype=" << cpu.dtype();
  if (!t.is_cpu()) os << ", device='" << t.device() << "'";
  return os << ')';
}

}  // namespace ember
