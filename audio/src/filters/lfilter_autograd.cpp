// The two differentiable halves of lfilter, as torchaudio 0.13's
// DifferentiableFIR and DifferentiableIIR (Note [lfilter gradients]).
#include <vector>

#include <ember/autograd/function.h>
#include <ember/ember.h>

#include "filters/lfilter_ops.h"

namespace ember::audio::detail {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

// Note [lfilter gradients]
// For one channel, v = FIR_b(x) and y = IIR_a(v) with y[n] = v[n] - sum_{k>=1}
// a_k y[n-k]. With g = dL/dv:
//   g       = flip(IIR_a(flip(dL/dy)))    the recursion run backwards in time
//   dL/da_k = -sum_n g[n] y[n-k]
//   dL/dx   = flip(FIR_b(flip(g)))        the taps run backwards
//   dL/db_k = sum_n g[n] x[n-k]
// summed over the batch for the coefficients. The backward passes call the same
// two functions, so they are differentiable again (gradgradcheck). As in
// torchaudio, dL/da_0 is reported too (-sum g y); it reaches the caller's a_0
// only through a / a_0, whose derivative cancels it.

// out[c, k] = sum_{b, n} g[b, c, n] s[b, c, n - k] for k < taps (zero before n = 0).
Tensor correlate(const Tensor& g, const Tensor& s, int64_t taps) {
  const int64_t length = g.size(-1);
  std::vector<Tensor> columns;
  columns.reserve(static_cast<size_t>(taps));
  for (int64_t k = 0; k < taps; ++k) {
    if (k >= length) {
      columns.push_back(zeros({g.size(1)}, g.options()));
      continue;
    }
    columns.push_back((g.narrow(-1, k, length - k) * s.narrow(-1, 0, length - k)).sum({0, 2}));
  }
  return stack(columns, 1);
}

struct FirFilter : autograd::Function<FirFilter> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& b, const char* fn) {
    ctx->save_for_backward({x, b});
    return run_lfilter_kernel(fn, x, Tensor(), b, false);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const Tensor& b = saved[1];
    const Tensor& g = grads[0];
    Tensor dx, db;
    if (ctx->needs_input_grad(0)) dx = FirFilter::apply(g.flip({-1}), b, "lfilter").flip({-1});
    if (ctx->needs_input_grad(1)) db = correlate(g, x, b.size(1));
    return {dx, db, Tensor()};
  }
};

struct IirFilter : autograd::Function<IirFilter> {
  static Tensor forward(AutogradContext* ctx, const Tensor& v, const Tensor& a, const char* fn) {
    Tensor y = run_lfilter_kernel(fn, v, a, Tensor(), false);
    ctx->save_for_backward({a, y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& a = saved[0];
    const Tensor& y = saved[1];
    const Tensor g = IirFilter::apply(grads[0].flip({-1}), a, "lfilter").flip({-1});
    Tensor da;
    if (ctx->needs_input_grad(1)) da = -correlate(g, y, a.size(1));
    return {ctx->needs_input_grad(0) ? g : Tensor(), da, Tensor()};
  }
};

}  // namespace

Tensor fir_filter(const char* fn, const Tensor& x, const Tensor& b_norm) { return FirFilter::apply(x, b_norm, fn); }

Tensor iir_filter(const char* fn, const Tensor& v, const Tensor& a_norm) { return IirFilter::apply(v, a_norm, fn); }

}  // namespace ember::audio::detail
