// ember::fft: numpy.fft semantics over the three primitives of kernels/slots/fft_kernels.h.
// Each function (1) promotes the input, (2) resolves n/s/dim into wrapped dims
// and signal sizes, (3) crops or zero-pads the input to those sizes (recorded
// shape ops), (4) runs one recorded primitive. The primitives' backward
// formulas are ATen's (derivatives.yaml: _fft_c2c, _fft_r2c, _fft_c2r) and use
// the recorded primitives themselves, so double backward works.
#include "ember/fft.h"

#include <algorithm>
#include <string>

#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape.h"
#include "kernels/slots/fft_kernels.h"
#include "ops/conj_views.h"  // resolve_bits: the FFT reads plain values
#include "ops/op_utils.h"

namespace ember::fft {

namespace detail {
EMBER_DEFINE_SLOT(fft_c2c_slot, FFTC2CFn, "fft_c2c");
EMBER_DEFINE_SLOT(fft_r2c_slot, FFTR2CFn, "fft_r2c");
EMBER_DEFINE_SLOT(fft_c2r_slot, FFTC2RFn, "fft_c2r");
}  // namespace detail
namespace {

using detail::Scale;

enum class NormMode { Backward, Forward, Ortho };

NormMode parse_norm(OptionalNorm norm, const char* op) {
  if (!norm || *norm == "backward") return NormMode::Backward;
  if (*norm == "forward") return NormMode::Forward;
  if (*norm == "ortho") return NormMode::Ortho;
  EMBER_FAIL(op, ": invalid normalization mode \"", std::string(*norm),
             "\" (expected \"backward\", \"forward\" or \"ortho\")");
}

// The scaling a transform in the given direction applies under `norm`.
Scale scale_for(NormMode norm, bool forward) {
  switch (norm) {
    case NormMode::Backward: return forward ? Scale::None : Scale::InvN;
    case NormMode::Forward: return forward ? Scale::InvN : Scale::None;
    case NormMode::Ortho: return Scale::InvSqrtN;
  }
  return Scale::None;
}

// ---- recorded primitives ----

Tensor c2c(const Tensor& x, const DimVector& dims, Scale scale, bool forward) {
  autograd::OpRecorder rec("fft_c2c", {x});
  Tensor out = detail::fft_c2c_slot(x.device())(resolve_bits(x), dims, scale, forward);
  if (rec) {
    rec.record(out, [dims, scale, forward](autograd::BackwardContext& c) {
      return autograd::variable_list{c2c(c.grads[0], dims, scale, !forward)};
    });
  }
  return out;
}

Tensor r2c(const Tensor& x, const DimVector& dims, Scale scale, bool onesided) {
  autograd::OpRecorder rec("fft_r2c", {x});
  Tensor out = detail::fft_r2c_slot(x.device())(resolve_bits(x), dims, scale, onesided);
  if (rec) {
    const int64_t last = dims.back(), full = x.size(last);
    rec.record(out, [dims, scale, onesided, last, full](autograd::BackwardContext& c) {
      // The adjoint of keeping the first half is zero-padding back to full length.
      Tensor g = c.grads[0];
      if (onesided) {
        DimVector pad(2 * (g.dim() - last), 0);
        pad.back() = full - g.size(last);
        g = constant_pad_nd(g, pad);
      }
      return autograd::variable_list{c2c(g, dims, scale, /*forward=*/false).real()};
    });
  }
  return out;
}

Tensor c2r(const Tensor& x, const DimVector& dims, Scale scale, int64_t last_dim_size) {
  autograd::OpRecorder rec("fft_c2r", {x});
  Tensor out = detail::fft_c2r_slot(x.device())(resolve_bits(x), dims, scale, last_dim_size);
  if (rec) {
    const int64_t last = dims.back();
    const DType real_dtype = to_real_dtype(x.dtype());
    rec.record(out, [dims, scale, last, real_dtype](autograd::BackwardContext& c) {
      Tensor g = r2c(c.grads[0].to(real_dtype), dims, scale, /*onesided=*/true);
      // Bins 1 .. n - n/2 - 1 stand for two entries of the full spectrum each.
      const int64_t n = c.grads[0].size(last), half = g.size(last);
      const int64_t doubled = n - half;
      if (doubled > 0) {
        Tensor w = ones({half}, TensorOptions(real_dtype).device(g.device()));
        w.narrow(0, 1, doubled).fill_(2);
        DimVector shape(g.dim(), 1);
        shape[last] = half;
        g = g * w.view(shape);
      }
      return autograd::variable_list{g};
    });
  }
  return out;
}

// ---- argument handling ----

Tensor promote_to_complex(const Tensor& x) {
  if (x.is_complex()) return x;
  const DType real = is_floating_point(x.dtype()) ? x.dtype() : default_dtype();
  return x.to(to_complex_dtype(real));
}

Tensor promote_to_real_float(const Tensor& x, const char* op) {
  EMBER_CHECK(!x.is_complex(), op, " expects a real input tensor, but got ", x.dtype());
  if (x.dtype() == kFloat32 || x.dtype() == kFloat64) return x;
  // Half/bfloat16 compute in float32; integers and bool in the default dtype.
  return x.to(is_floating_point(x.dtype()) ? kFloat32 : default_dtype());
}

// Crops (narrow) or zero-pads (at the end) x to size n along each dim.
Tensor resize_signal(const Tensor& x, const DimVector& dims, const DimVector& sizes) {
  Tensor out = x;
  bool needs_pad = false;
  DimVector pad(2 * x.dim(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i], have = out.size(d), want = sizes[i];
    if (want < have) out = out.narrow(d, 0, want);
    else if (want > have) {
      pad[2 * (x.dim() - 1 - d) + 1] = want - have;
      needs_pad = true;
    }
  }
  return needs_pad ? constant_pad_nd(out, pad) : out;
}

void check_n(int64_t n, const char* op) {
  EMBER_CHECK(n >= 1, op, ": invalid number of data points (", n, ") specified");
}

struct Signal {
  DimVector dims;   // wrapped, distinct
  DimVector sizes;  // the signal size along each of dims
};

Signal signal_1d(const Tensor& x, std::optional<int64_t> n, int64_t dim, const char* op) {
  Signal sig;
  sig.dims.push_back(wrap_dim(dim, x.dim(), op));
  EMBER_CHECK(x.dim() >= 1, op, ": expected a tensor with at least one dimension");
  const int64_t size = n ? *n : x.size(sig.dims[0]);
  check_n(size, op);
  sig.sizes.push_back(size);
  return sig;
}

// numpy's rules for (s, dim): dim defaults to the last len(s) dims, or to all
// dims when s is omitted too; s defaults to the input's sizes; -1 in s means
// the input's size.
Signal signal_nd(const Tensor& x, OptionalIntArrayRef s, OptionalIntArrayRef dim, const char* op) {
  Signal sig;
  const int64_t ndim = x.dim();
  if (dim) {
    for (int64_t d : *dim) sig.dims.push_back(wrap_dim(d, ndim, op));
    DimVector sorted = sig.dims;
    std::sort(sorted.begin(), sorted.end());
    EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), op,
                ": FFT dims must be unique, got ", IntArrayRef(sig.dims));
    if (s) {
      EMBER_CHECK(s->size() == dim->size(), op, ": when given, dim and shape arguments must have the same length (",
                  dim->size(), " vs ", s->size(), ")");
    }
  } else if (s) {
    EMBER_CHECK(static_cast<int64_t>(s->size()) <= ndim, op, ": got shape with ", s->size(),
                " values but the input has only ", ndim, " dimensions");
    for (int64_t d = ndim - static_cast<int64_t>(s->size()); d < ndim; ++d) sig.dims.push_back(d);
  } else {
    for (int64_t d = 0; d < ndim; ++d) sig.dims.push_back(d);
  }
  for (size_t i = 0; i < sig.dims.size(); ++i) {
    const int64_t want = s ? (*s)[i] : -1;
    const int64_t size = want == -1 ? x.size(sig.dims[i]) : want;
    check_n(size, op);
    sig.sizes.push_back(size);
  }
  return sig;
}

// ---- the transforms, shared by the 1-d, 2-d and n-d entry points ----

// fft/ifft/fftn/ifftn. Real inputs take the r2c path with the full spectrum
// (the inverse of a real signal is the conjugate of its forward transform).
Tensor complex_transform(const Tensor& input, const Signal& sig, NormMode norm, bool forward) {
  if (sig.dims.empty()) return promote_to_complex(input).clone();
  if (!input.is_complex()) {
    Tensor x = resize_signal(promote_to_real_float(input, "fft"), sig.dims, sig.sizes);
    Tensor out = r2c(x, sig.dims, scale_for(norm, forward), /*onesided=*/false);
    return forward ? out : out.conj();
  }
  Tensor x = resize_signal(input, sig.dims, sig.sizes);
  return c2c(x, sig.dims, scale_for(norm, forward), forward);
}

// rfft/rfftn (forward) and ihfft (conjugated inverse).
Tensor real_to_half(const Tensor& input, const Signal& sig, NormMode norm, bool forward, const char* op) {
  EMBER_CHECK(!sig.dims.empty(), op, " must transform at least one axis");
  Tensor x = resize_signal(promote_to_real_float(input, op), sig.dims, sig.sizes);
  Tensor out = r2c(x, sig.dims, scale_for(norm, forward), /*onesided=*/true);
  return forward ? out : out.conj();
}

// irfft/irfftn (inverse) and hfft (forward of the conjugate): sig.sizes are the
// real output's sizes; the half spectrum keeps last/2 + 1 entries.
Tensor half_to_real(const Tensor& input, Signal sig, NormMode norm, bool forward, const char* op) {
  EMBER_CHECK(!sig.dims.empty(), op, " must transform at least one axis");
  const int64_t last_size = sig.sizes.back();
  DimVector half_sizes = sig.sizes;
  half_sizes.back() = last_size / 2 + 1;
  Tensor x = resize_signal(promote_to_complex(input), sig.dims, half_sizes);
  if (forward) x = x.conj();
  return c2r(x, sig.dims, scale_for(norm, forward), last_size);
}

// irfft/hfft's default length: 2 * (m - 1) along the last transformed dim.
void default_real_length(const Tensor& x, Signal& sig, bool explicit_size, const char* op) {
  if (explicit_size) return;
  const int64_t m = x.size(sig.dims.back());
  sig.sizes.back() = 2 * (m - 1);
  check_n(sig.sizes.back(), op);
}

Signal signal_1d_real_out(const Tensor& x, std::optional<int64_t> n, int64_t dim, const char* op) {
  EMBER_CHECK(x.dim() >= 1, op, ": expected a tensor with at least one dimension");
  Signal sig;
  sig.dims.push_back(wrap_dim(dim, x.dim(), op));
  sig.sizes.push_back(n ? *n : 2 * (x.size(sig.dims[0]) - 1));
  check_n(sig.sizes[0], op);
  return sig;
}

Signal signal_nd_real_out(const Tensor& x, OptionalIntArrayRef s, OptionalIntArrayRef dim, const char* op) {
  Signal sig = signal_nd(x, s, dim, op);
  EMBER_CHECK(!sig.dims.empty(), op, " must transform at least one axis");
  const bool explicit_last = s && (*s)[s->size() - 1] != -1;
  default_real_length(x, sig, explicit_last, op);
  return sig;
}

}  // namespace

Tensor fft(const Tensor& input, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return complex_transform(input, signal_1d(input, n, dim, "fft"), parse_norm(norm, "fft"), true);
}
Tensor ifft(const Tensor& input, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return complex_transform(input, signal_1d(input, n, dim, "ifft"), parse_norm(norm, "ifft"), false);
}
Tensor rfft(const Tensor& input, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return real_to_half(input, signal_1d(input, n, dim, "rfft"), parse_norm(norm, "rfft"), true, "rfft");
}
Tensor irfft(const Tensor& input, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return half_to_real(input, signal_1d_real_out(input, n, dim, "irfft"), parse_norm(norm, "irfft"), false,
                      "irfft");
}
Tensor hfft(const Tensor& input, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return half_to_real(input, signal_1d_real_out(input, n, dim, "hfft"), parse_norm(norm, "hfft"), true, "hfft");
}
Tensor ihfft(const Tensor& input, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return real_to_half(input, signal_1d(input, n, dim, "ihfft"), parse_norm(norm, "ihfft"), false, "ihfft");
}

Tensor fft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return fftn(input, s, dim, norm);
}
Tensor ifft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return ifftn(input, s, dim, norm);
}
Tensor rfft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return rfftn(input, s, dim, norm);
}
Tensor irfft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return irfftn(input, s, dim, norm);
}

Tensor fftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return complex_transform(input, signal_nd(input, s, dim, "fftn"), parse_norm(norm, "fftn"), true);
}
Tensor ifftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return complex_transform(input, signal_nd(input, s, dim, "ifftn"), parse_norm(norm, "ifftn"), false);
}
Tensor rfftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return real_to_half(input, signal_nd(input, s, dim, "rfftn"), parse_norm(norm, "rfftn"), true, "rfftn");
}
Tensor irfftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return half_to_real(input, signal_nd_real_out(input, s, dim, "irfftn"), parse_norm(norm, "irfftn"), false,
                      "irfftn");
}

Tensor fftfreq(int64_t n, double d, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "fftfreq: n must be non-negative, got ", n);
  const DType dtype = options.dtype();
  Tensor k = arange(n, TensorOptions(options).dtype(kFloat64));
  if (n > 0) k = where(k >= (n + 1) / 2, k - static_cast<double>(n), k);
  return (k / (d * static_cast<double>(n))).to(dtype);
}

Tensor rfftfreq(int64_t n, double d, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "rfftfreq: n must be non-negative, got ", n);
  const DType dtype = options.dtype();
  Tensor k = arange(n / 2 + 1, TensorOptions(options).dtype(kFloat64));
  return (k / (d * static_cast<double>(n))).to(dtype);
}

namespace {
Tensor shift(const Tensor& input, OptionalIntArrayRef dim, bool inverse) {
  DimVector dims, shifts;
  if (dim) {
    for (int64_t d : *dim) dims.push_back(wrap_dim(d, input.dim(), inverse ? "ifftshift" : "fftshift"));
  } else {
    for (int64_t d = 0; d < input.dim(); ++d) dims.push_back(d);
  }
  if (dims.empty()) return input.clone();
  for (int64_t d : dims) shifts.push_back(inverse ? (input.size(d) + 1) / 2 : input.size(d) / 2);
  return roll(input, shifts, dims);
}
}  // namespace

Tensor fftshift(const Tensor& input, OptionalIntArrayRef dim) { return shift(input, dim, false); }
Tensor ifftshift(const Tensor& input, OptionalIntArrayRef dim) { return shift(input, dim, true); }

}  // namespace ember::fft
