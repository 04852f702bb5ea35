// The table of known and deliberate differences (see known_differences.h).
#include "known_differences.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace difffuzz {

namespace {

bool is_float_or_complex(DType t) { return ember::is_floating_point(t) || ember::is_complex(t); }

bool any_input(const CaseResult& r, const std::function<bool(const TensorArg&)>& f) {
  return std::any_of(r.c.tensors.begin(), r.c.tensors.end(), f);
}

bool has_nonfinite(const TensorArg& t) { return t.has_nonfinite(); }

bool has_value(const TensorArg& t, double v) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (t.value(i) == v) return true;
  return false;
}

// Whether PyTorch converts `s` to `dtype` without its "value cannot be
// converted to type ... without overflow" error.
bool fits(const ScalarArg& s, DType dtype) {
  if (dtype == DType::Bool || is_float_or_complex(dtype)) return true;
  if (s.kind == ScalarArg::Kind::Bool) return true;
  double lo, hi;
  switch (dtype) {
    case DType::UInt8: lo = 0; hi = 255; break;
    case DType::Int8: lo = -128; hi = 127; break;
    case DType::Int16: lo = -32768; hi = 32767; break;
    case DType::Int32: lo = -2147483648.0; hi = 2147483647.0; break;
    default: lo = -9.2233720368547758e18; hi = 9.2233720368547758e18; break;
  }
  if (s.kind == ScalarArg::Kind::Int) return static_cast<double>(s.i) >= lo && static_cast<double>(s.i) <= hi;
  if (s.kind == ScalarArg::Kind::Complex && s.im != 0) return false;
  return std::isfinite(s.re) && s.re >= lo - 1 && s.re <= hi + 1;
}

int bit_width(DType t) { return static_cast<int>(ember::element_size(t)) * 8; }

bool rank0(const TensorArg& t) { return t.sizes.empty(); }

std::vector<KnownDifference> build() {
  std::vector<KnownDifference> k;
  // ---- issue 18, "Numerics and semantics" items 1-10 (fixed on another branch) ----
  k.push_back({"issue18.1", "sum/prod/mean with dtype= on complex input reduce in complex, PyTorch casts first",
               {"sum", "prod", "mean"}, {"values", "grad", "raise"},
               [](const CaseResult& r, const Mismatch&) {
                 return ember::is_complex(r.c.tensors[0].dtype) && r.c.p.dtype && !ember::is_complex(*r.c.p.dtype);
               }});
  k.push_back({"issue18.2", "pow(Scalar, Tensor) exponent gradient computed in float32 on float64/complex128 inputs",
               {"pow_scalar_base"}, {"grad"}, nullptr});
  k.push_back({"issue18.3", "cross_entropy/nll_loss (mean) with every target ignored: gradient NaN, PyTorch 0",
               {"cross_entropy", "nll_loss"}, {"grad", "values"},
               [](const CaseResult& r, const Mismatch&) {
                 if (r.c.p.variant != 0 || r.c.p.mode != "1") return false;
                 const TensorArg& t = r.c.tensors[1];
                 for (int64_t i = 0; i < t.numel(); ++i)
                   if (t.value(i) != static_cast<double>(r.c.p.k)) return false;
                 return true;
               }});
  k.push_back({"issue18.4", "clamp(Tensor, min, max) with a higher-precision 0-dim bound computes the bound in the input's dtype",
               {"clamp"}, {"values", "grad", "dtype"},
               [](const CaseResult& r, const Mismatch&) {
                 return r.c.p.variant == 1 && (rank0(r.c.tensors[1]) || rank0(r.c.tensors[2]));
               }});
  k.push_back({"issue18.5", "argmax/argmin(dim=None, keepdim=True) return a 0-dim tensor, PyTorch keeps all dims as 1",
               {"argmax", "argmin"}, {"shape"},
               [](const CaseResult& r, const Mismatch&) { return !r.c.p.dim && r.c.p.keepdim; }});
  k.push_back({"issue18.6", "masked_fill/fill_ with a value that does not fit an integer dtype wrap; PyTorch raises",
               {"masked_fill", "masked_fill_", "fill_", "index_fill", "scatter"}, {"raise", "values"},
               [](const CaseResult& r, const Mismatch&) {
                 return !r.c.p.scalars.empty() && !fits(r.c.p.scalars.back(), r.c.tensors[0].dtype);
               }});
  k.push_back({"issue18.7a", "embedding backward with embedding_dim 0 throws from a reshape", {"embedding"},
               {"grad_raise"}, [](const CaseResult& r, const Mismatch&) { return r.c.tensors[1].sizes[1] == 0; }});
  k.push_back({"issue18.7b", "cross_entropy with probability targets on an empty batch does not require grad",
               {"cross_entropy"}, {"requires_grad", "grad_raise"},
               [](const CaseResult& r, const Mismatch&) { return r.c.p.variant == 1 && r.c.tensors[0].numel() == 0; }});
  k.push_back({"issue18.7c", "batch_norm in training on an empty input raises (PyTorch: only one value per channel)",
               {"batch_norm"}, {"raise"},
               [](const CaseResult& r, const Mismatch&) { return r.c.p.flag && r.c.tensors[0].numel() == 0; }});
  k.push_back({"issue18.8a", "relu's gradient at NaN input (PyTorch passes the gradient)", {"relu"}, {"grad"},
               [](const CaseResult& r, const Mismatch&) { return r.c.tensors[0].has_nan(); }});
  k.push_back({"issue18.8b", "cumprod's gradient where a slice holds both 0 and inf", {"cumprod"}, {"grad"},
               [](const CaseResult& r, const Mismatch&) {
                 return has_value(r.c.tensors[0], 0.0) && r.c.tensors[0].has_nonfinite();
               }});
  k.push_back({"issue18.8c", "transpose(0, 1) and roll(dims=[0]) on a 0-dim tensor succeed where PyTorch raises",
               {"transpose", "roll"}, {"raise"},
               [](const CaseResult& r, const Mismatch&) { return rank0(r.c.tensors[0]); }});
  k.push_back({"issue18.9", "strided complex dot handed to OpenBLAS 0.3.21, whose complex dot kernel over-reads",
               {"dot", "vdot"}, {"values"},
               [](const CaseResult& r, const Mismatch&) { return ember::is_complex(r.c.tensors[0].dtype); }});
  k.push_back({"issue18.10", "output strides differ from PyTorch's (values equal)",
               {"conv1d", "conv2d", "conv_transpose2d", "batch_norm", "masked_fill", "roll", "flip", "max_pool2d",
                "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "interpolate", "pow_scalar_base", "clamp"},
               {"layout"}, nullptr});

  // ---- deliberate differences (docs/elementwise... list them) ----
  k.push_back({"deliberate.clamp-nan", "a NaN clamp bound propagates (PyTorch 1.13 ignores it in some paths)",
               {"clamp", "hardtanh"}, {"values", "grad"},
               [](const CaseResult& r, const Mismatch&) {
                 for (const ScalarArg& s : r.c.p.scalars)
                   if (s.is_nan()) return true;
                 for (double v : r.c.p.reals)
                   if (std::isnan(v)) return true;
                 return r.c.p.variant == 1 && (r.c.tensors[1].has_nan() || r.c.tensors[2].has_nan());
               },
               true});
  k.push_back({"deliberate.shift", "shifts by the bit width or more, or by negative amounts, give 0 (PyTorch 2)",
               {"bitwise_left_shift", "bitwise_right_shift"}, {"values"},
               [](const CaseResult& r, const Mismatch&) {
                 const int w = bit_width(r.c.tensors[0].dtype);
                 if (r.c.p.variant == 1) {
                   const double s = r.c.p.scalars.back().as_double();
                   return s < 0 || s >= w;
                 }
                 const TensorArg& sh = r.c.tensors[1];
                 for (int64_t i = 0; i < sh.numel(); ++i)
                   if (sh.value(i) < 0 || sh.value(i) >= std::min(w, bit_width(sh.dtype))) return true;
                 return false;
               },
               true});
  k.push_back({"deliberate.c99-complex", "complex functions at infinite/NaN arguments follow C99 Annex G", {},
               {"values", "grad"},
               [](const CaseResult& r, const Mismatch&) {
                 return any_input(r, [](const TensorArg& t) { return ember::is_complex(t.dtype) && has_nonfinite(t); });
               },
               true});
  return k;
}

bool matches(const KnownDifference& k, const CaseResult& r, const Mismatch& m) {
  if (!k.ops.empty() && std::find(k.ops.begin(), k.ops.end(), r.c.op) == k.ops.end()) return false;
  if (!k.kinds.empty() && std::find(k.kinds.begin(), k.kinds.end(), m.kind) == k.kinds.end()) return false;
  return !k.when || k.when(r, m);
}

}  // namespace

const std::vector<KnownDifference>& known_differences() {
  static const std::vector<KnownDifference> table = build();
  return table;
}

void classify_known(CaseResult& r) {
  for (std::vector<Mismatch>* list : {&r.mismatches, &r.layout})
    for (Mismatch& m : *list)
      for (const KnownDifference& k : known_differences())
        if (matches(k, r, m)) {
          m.known = k.id;
          break;
        }
}

}  // namespace difffuzz
