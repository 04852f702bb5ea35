// Building the inputs in both libraries, copying results across, comparing.
#include "bridge.h"

#include <ATen/Parallel.h>

#include <cstring>
#include <sstream>

namespace difffuzz {

// ---- conversions ----

at::ScalarType to_torch(DType t) {
  switch (t) {
    case DType::Bool: return at::kBool;
    case DType::UInt8: return at::kByte;
    case DType::Int8: return at::kChar;
    case DType::Int16: return at::kShort;
    case DType::Int32: return at::kInt;
    case DType::Int64: return at::kLong;
    case DType::Float16: return at::kHalf;
    case DType::BFloat16: return at::kBFloat16;
    case DType::Float32: return at::kFloat;
    case DType::Float64: return at::kDouble;
    case DType::Complex64: return at::kComplexFloat;
    case DType::Complex128: return at::kComplexDouble;
  }
  throw std::runtime_error("difffuzz: unknown Ember dtype");
}

DType to_ember(at::ScalarType t) {
  switch (t) {
    case at::kBool: return DType::Bool;
    case at::kByte: return DType::UInt8;
    case at::kChar: return DType::Int8;
    case at::kShort: return DType::Int16;
    case at::kInt: return DType::Int32;
    case at::kLong: return DType::Int64;
    case at::kHalf: return DType::Float16;
    case at::kBFloat16: return DType::BFloat16;
    case at::kFloat: return DType::Float32;
    case at::kDouble: return DType::Float64;
    case at::kComplexFloat: return DType::Complex64;
    case at::kComplexDouble: return DType::Complex128;
    default: break;
  }
  throw std::runtime_error(std::string("difffuzz: no Ember dtype for ") + c10::toString(t));
}

c10::optional<at::ScalarType> to_torch(const std::optional<DType>& t) {
  if (!t) return c10::nullopt;
  return to_torch(*t);
}

ember::Scalar to_ember(const ScalarArg& s) {
  switch (s.kind) {
    case ScalarArg::Kind::Bool: return ember::Scalar(s.b);
    case ScalarArg::Kind::Int: return ember::Scalar(s.i);
    case ScalarArg::Kind::Double: return ember::Scalar(s.re);
    default: return ember::Scalar(std::complex<double>(s.re, s.im));
  }
}

c10::Scalar to_torch(const ScalarArg& s) {
  switch (s.kind) {
    case ScalarArg::Kind::Bool: return c10::Scalar(s.b);
    case ScalarArg::Kind::Int: return c10::Scalar(s.i);
    case ScalarArg::Kind::Double: return c10::Scalar(s.re);
    default: return c10::Scalar(c10::complex<double>(s.re, s.im));
  }
}

std::string shape_str(at::IntArrayRef s) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
  o << ']';
  return o.str();
}

// ---- inputs ----

namespace {

// The storage as a 1-d Ember tensor of the case's dtype: built from the
// generated values at full width, then converted (so both libraries get the
// very same bytes, whatever rounding the conversion does).
ember::Tensor ember_storage(const TensorArg& t) {
  const int64_t n = std::max<int64_t>(t.storage_numel(), 0);
  ember::Tensor wide;
  if (ember::is_complex(t.dtype)) {
    std::vector<std::complex<double>> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = {t.reals[2 * i], t.reals[2 * i + 1]};
    wide = ember::tensor(v);
  } else if (ember::is_floating_point(t.dtype)) {
    wide = ember::tensor(std::vector<double>(t.reals.begin(), t.reals.begin() + n), ember::TensorOptions(DType::Float64));
  } else {
    wide = ember::tensor(std::vector<int64_t>(t.ints.begin(), t.ints.begin() + n));
  }
  return wide.to(t.dtype);
}

}  // namespace

ember::Tensor make_ember_tensor(const TensorArg& t) {
  ember::Tensor storage = ember_storage(t);
  ember::Tensor v = storage.as_strided(t.sizes, t.strides, t.offset).detach();
  if (t.requires_grad) v.requires_grad_(true);
  return v;
}

at::Tensor make_torch_tensor(const TensorArg& t) {
  ember::Tensor storage = ember_storage(t).contiguous();
  const int64_t n = storage.numel();
  at::Tensor ts = at::empty({n}, at::TensorOptions(to_torch(t.dtype)));
  if (n) std::memcpy(ts.data_ptr(), storage.data_ptr(), static_cast<size_t>(n) * storage.element_size());
  at::Tensor v = ts.as_strided(t.sizes, t.strides, t.offset).detach();
  if (t.requires_grad) v.requires_grad_(true);
  return v;
}

ETensors make_ember_inputs(const Case& c) {
  ETensors out;
  for (const TensorArg& t : c.tensors) out.push_back(make_ember_tensor(t));
  return out;
}

TTensors make_torch_inputs(const Case& c) {
  TTensors out;
  for (const TensorArg& t : c.tensors) out.push_back(make_torch_tensor(t));
  return out;
}

at::Tensor ember_to_torch(const ember::Tensor& t) {
  ember::Tensor c = t.detach().resolve_conj().resolve_neg().contiguous();
  std::vector<int64_t> sizes(c.sizes().begin(), c.sizes().end());
  at::Tensor out = at::empty(sizes, at::TensorOptions(to_torch(c.dtype())));
  if (c.numel()) std::memcpy(out.data_ptr(), c.data_ptr(), static_cast<size_t>(c.numel()) * c.element_size());
  return out;
}

std::string error_text(const std::exception& e) {
  std::string s;
  if (const auto* ce = dynamic_cast<const c10::Error*>(&e)) s = ce->what_without_backtrace();
  else s = e.what();
  const size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

// ---- comparison ----

Tolerance tolerance_for(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return {2e-3, 1e-3};
    case at::kBFloat16: return {1.6e-2, 1e-2};
    case at::kFloat:
    case at::kComplexFloat: return {1e-5, 1e-6};
    case at::kDouble:
    case at::kComplexDouble: return {1e-9, 1e-12};
    default: return {0, 0};
  }
}

namespace {

std::string value_str(const at::Tensor& real_view, int64_t flat, bool complex) {
  std::ostringstream s;
  s.precision(9);
  if (complex) {
    at::Tensor v = real_view.reshape({-1, 2});
    s << '(' << v[flat][0].item<double>() << (v[flat][1].item<double>() < 0 ? "" : "+") << v[flat][1].item<double>()
      << "j)";
  } else {
    s << real_view.reshape({-1})[flat].item<double>();
  }
  return s.str();
}

}  // namespace

std::string compare_values(const at::Tensor& e, const at::Tensor& t, double rtol, double atol) {
  const at::ScalarType st = t.scalar_type();
  if (!at::isFloatingType(st) && !at::isComplexType(st)) {
    if (at::equal(e, t)) return "";
    at::Tensor bad = (e != t).reshape({-1});
    const int64_t n = bad.sum().item<int64_t>();
    const int64_t first = bad.nonzero()[0][0].item<int64_t>();
    std::ostringstream s;
    s << n << " of " << t.numel() << " differ; first at flat index " << first << ": ember "
      << e.reshape({-1})[first].item<double>() << " vs torch " << t.reshape({-1})[first].item<double>();
    return s.str();
  }
  const bool complex = at::isComplexType(st);
  at::Tensor a = complex ? at::view_as_real(e.to(at::kComplexDouble)) : e.to(at::kDouble);
  at::Tensor b = complex ? at::view_as_real(t.to(at::kComplexDouble)) : t.to(at::kDouble);
  at::Tensor na = a.isnan(), nb = b.isnan();
  // (an infinity is close to itself only: rtol * inf would admit anything)
  at::Tensor close = ((a - b).abs() <= atol + rtol * b.abs()) & b.isfinite();
  if (complex) {
    // Complex numbers as isclose compares them: the modulus of the difference
    // against rtol times the modulus, so that a component much smaller than
    // the other one is not held to its own relative precision.
    const at::Tensor ec = e.to(at::kComplexDouble), tc = t.to(at::kComplexDouble);
    const at::Tensor close_c = ((ec - tc).abs() <= atol + rtol * tc.abs()) & b.isfinite().all(-1);
    close = close_c.unsqueeze(-1).expand_as(a);
  }
  at::Tensor bad = (na != nb) | (~na & ~(a == b) & ~close);
  if (complex) bad = bad.any(-1);
  bad = bad.reshape({-1});
  if (!bad.any().item<bool>()) return "";
  const int64_t n = bad.sum().item<int64_t>();
  const int64_t first = bad.nonzero()[0][0].item<int64_t>();
  std::ostringstream s;
  s << n << " of " << t.numel() << " differ; first at flat index " << first << ": ember " << value_str(a, first, complex)
    << " vs torch " << value_str(b, first, complex);
  return s.str();
}

std::string compare_layout(const ember::Tensor& e, const at::Tensor& t) {
  if (t.numel() <= 1) return "";
  std::vector<int64_t> se, st;
  for (int64_t d = 0; d < t.dim(); ++d) {
    se.push_back(t.size(d) > 1 ? e.stride(d) : 0);
    st.push_back(t.size(d) > 1 ? t.stride(d) : 0);
  }
  if (se == st) return "";
  return "strides " + shape_str(se) + " vs torch " + shape_str(st);
}

namespace {
class QuietHandler : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
};
}  // namespace

void silence_torch_warnings() {
  static QuietHandler handler;
  c10::Warning::set_warning_handler(&handler);
}

void set_threads(int n) {
  ember::set_num_threads(n);
  at::set_num_threads(n);
}

}  // namespace difffuzz
