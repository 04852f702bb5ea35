// gradcheck / gradgradcheck: see ember/autograd/gradcheck.h.
#include "ember/autograd/gradcheck.h"

#include <cmath>
#include <array>
#include <complex>
#include <cstdio>
#include <string>

#include "ember/autograd/autograd.h"
#include "ember/core/generator.h"
#include "ember/ops/factories.h"
#include "ember/ops/random.h"

namespace ember::autograd {

namespace {

bool differentiable(const Tensor& t) { return t.defined() && t.requires_grad(); }

variable_list run(const GradcheckFn& fn, const variable_list& inputs) {
  variable_list out = fn(inputs);
  for (size_t i = 0; i < out.size(); ++i)
    EMBER_CHECK(out[i].defined(), "gradcheck: output ", i, " of the function is undefined");
  return out;
}

// fn's outputs copied: an output may be a view of an input (x.t(), or a vjp
// that is a view of v), and the input is perturbed again before comparing.
variable_list run_snapshot(const GradcheckFn& fn, const variable_list& inputs) {
  variable_list out = run(fn, inputs);
  NoGradGuard no_grad;
  for (Tensor& t : out) t = t.clone();
  return out;
}

// Element i (flat, logical order) of t as a complex number.
std::complex<double> element(const Tensor& t, int64_t i) {
  Tensor flat = t.reshape({-1}).select(0, i);
  if (t.is_complex()) return flat.item().to<complex128>();
  return {flat.item<double>(), 0.0};
}

// Adds delta to the real (part 0) or imaginary (part 1) component of element i of t, in place.
void perturb(Tensor& t, int64_t i, int part, double delta) {
  NoGradGuard no_grad;
  Tensor e = t.view({-1}).select(0, i);
  if (t.is_complex()) {
    Tensor ri = part == 0 ? e.real() : e.imag();
    ri.add_(delta);
  } else {
    e.add_(delta);
  }
}

struct Mismatch {
  bool found = false;
  std::string message;
};

}  // namespace

namespace {
// 17 significant digits: a mismatch under tight tolerances shows where the
// two values part (the default 6 digits print them equal).
std::string full_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
// "+<imag>i" when the values are complex, else nothing.
std::string complex_part(bool is_complex, double imag) {
  return is_complex ? "+" + full_digits(imag) + "i" : std::string();
}
}  // namespace

bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& opt) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (differentiable(inputs[i]))
      EMBER_CHECK(inputs[i].dtype() == kFloat64 || inputs[i].dtype() == kComplex128, "gradcheck: input ", i,
                  " requires grad but has dtype ", inputs[i].dtype(), "; use float64 or complex128 inputs");

  const variable_list outputs = run(fn, inputs);

  // Numerical: column per (input, element, real/imag part) of every output.
  // numerical[in][elem][part][out] = d out / d component (tensor of out's shape).
  std::vector<std::vector<std::array<variable_list, 2>>> numerical(inputs.size());
  for (size_t in = 0; in < inputs.size(); ++in) {
    if (!differentiable(inputs[in])) continue;
    // Perturb a private contiguous copy: views and shared storage stay untouched.
    variable_list xs = inputs;
    Tensor x;
    {
      NoGradGuard no_grad;
      x = inputs[in].detach().clone(MemoryFormat::Contiguous);
    }
    // Still requires grad: the function may differentiate internally
    // (gradgradcheck's does).
    x.requires_grad_();
    xs[in] = x;
    const int64_t n = x.numel();
    numerical[in].resize(n);
    const int parts = x.is_complex() ? 2 : 1;
    for (int64_t e = 0; e < n; ++e) {
      for (int part = 0; part < parts; ++part) {
        perturb(x, e, part, opt.eps);
        const variable_list plus = run_snapshot(fn, xs);
        perturb(x, e, part, -2 * opt.eps);
        const variable_list minus = run_snapshot(fn, xs);
        perturb(x, e, part, opt.eps);
        {
          NoGradGuard no_grad;
          for (size_t o = 0; o < plus.size(); ++o) {
            Tensor p = plus[o].is_complex() ? plus[o].to(kComplex128) : plus[o].to(kFloat64);
            Tensor m = minus[o].is_complex() ? minus[o].to(kComplex128) : minus[o].to(kFloat64);
            numerical[in][e][part].push_back((p - m) / (2 * opt.eps));
          }
        }
      }
    }
  }

  // Analytical: one backward per output element (and per real/imaginary
  // direction for complex outputs), compared with the numerical columns.
  Mismatch bad;
  variable_list diff_inputs;
  std::vector<size_t> diff_index;
  for (size_t in = 0; in < inputs.size(); ++in)
    if (differentiable(inputs[in])) {
      diff_inputs.push_back(inputs[in]);
      diff_index.push_back(in);
    }
  if (diff_inputs.empty()) return true;
  for (size_t o = 0; o < outputs.size() && !bad.found; ++o) {
    const Tensor& out = outputs[o];
    if (!out.requires_grad()) {
      // No history: the output must then not depend on any input (a missing
      // backward formula shows up here).
      for (size_t in : diff_index)
        for (size_t j = 0; j < numerical[in].size() && !bad.found; ++j)
          for (const variable_list& cols : numerical[in][j])
            if (!cols.empty() && cols[o].abs().max().item<double>() > opt.atol) {
              bad.found = true;
              bad.message = ember::detail::concat("gradcheck: output ", o, " does not require grad but depends on input ",
                                                  in, " (element ", j, ")");
              break;
            }
      continue;
    }
    const int dirs = out.is_complex() ? 2 : 1;
    for (int64_t e = 0; e < out.numel() && !bad.found; ++e) {
      for (int dir = 0; dir < dirs && !bad.found; ++dir) {
        Tensor g = zeros(out.sizes(), out.options());
        {
          NoGradGuard no_grad;
          if (dir == 0) g.view({-1}).select(0, e).fill_(1);
          else g.view({-1}).select(0, e).fill_(Scalar(complex128(0, 1)));
        }
        variable_list grads = autograd::grad({out}, diff_inputs, {g}, /*retain_graph=*/true, false, true);
        for (size_t k = 0; k < diff_inputs.size() && !bad.found; ++k) {
          const size_t in = diff_index[k];
          const Tensor& x = inputs[in];
          for (int64_t j = 0; j < x.numel() && !bad.found; ++j) {
            // L = Re(conj(g_dir) * out[e]): dL/dc = Re(conj(g_dir) * d out[e] / dc).
            const std::complex<double> gdir = dir == 0 ? std::complex<double>(1, 0) : std::complex<double>(0, 1);
            auto dL = [&](int part) {
              return (std::conj(gdir) * element(numerical[in][j][part][o], e)).real();
            };
            const std::complex<double> expected =
                x.is_complex() ? std::complex<double>(dL(0), dL(1)) : std::complex<double>(dL(0), 0);
            const std::complex<double> actual = grads[k].defined() ? element(grads[k], j) : 0.0;
            if (std::abs(actual - expected) > opt.atol + opt.rtol * std::abs(expected)) {
              bad.found = true;
              bad.message = ember::detail::concat(
                  "gradcheck: Jacobian mismatch for output ", o, " element ", e,
                  dirs == 2 ? (dir == 0 ? " (real part)" : " (imaginary part)") : "", " with respect to input ", in,
                  " element ", j, ": analytical ", full_digits(actual.real()),
                  complex_part(x.is_complex() || out.is_complex(), actual.imag()),
                  ", numerical ", full_digits(expected.real()),
                  complex_part(x.is_complex() || out.is_complex(), expected.imag()),
                  " (atol ", opt.atol, ", rtol ", opt.rtol, ")");
            }
          }
        }
      }
    }
  }
  if (bad.found && opt.raise_exception) EMBER_FAIL(bad.message);
  return !bad.found;
}

bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, double eps, double atol, double rtol) {
  GradcheckOptions o;
  o.eps = eps;
  o.atol = atol;
  o.rtol = rtol;
  return gradcheck(fn, inputs, o);
}

bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs, const variable_list& grad_outputs,
                   const GradcheckOptions& options) {
  variable_list gos = grad_outputs;
  if (gos.empty()) {
    const variable_list outs = run(fn, inputs);
    Generator gen(20240531);
    for (const Tensor& o : outs) {
      Tensor v;
      if (o.is_complex()) {
        const TensorOptions real(to_real_dtype(o.dtype()));
        v = randn(o.sizes(), real, &gen).to(o.dtype()) +
            randn(o.sizes(), real, &gen).to(o.dtype()) * Scalar(complex128(0, 1));
      } else {
        v = randn(o.sizes(), TensorOptions(o.dtype()), &gen).to(o.device());
      }
      gos.push_back(v.requires_grad_());
    }
  }
  const size_t n_in = inputs.size();
  GradcheckFn first_order = [fn, n_in](const variable_list& args) {
    variable_list xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n_in));
    variable_list vs(args.begin() + static_cast<std::ptrdiff_t>(n_in), args.end());
    variable_list outs = fn(xs);
    variable_list diff;
    for (const Tensor& x : xs)
      if (differentiable(x)) diff.push_back(x);
    variable_list outs_used, vs_used;
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i].requires_grad()) {
        outs_used.push_back(outs[i]);
        vs_used.push_back(vs[i]);
      }
    variable_list g = autograd::grad(outs_used, diff, vs_used, true, /*create_graph=*/true, /*allow_unused=*/true);
    variable_list result;
    for (size_t i = 0; i < g.size(); ++i) result.push_back(g[i].defined() ? g[i] : zeros_like(diff[i]));
    return result;
  };
  variable_list args = inputs;
  args.insert(args.end(), gos.begin(), gos.end());
  return gradcheck(first_order, args, options);
}

}  // namespace ember::autograd
