// convolve (torchaudio 2.0's functional.py): the direct sum, batched over the
// broadcast leading dims (convolve_slot), with autograd: each operand's
// gradient is itself a full convolution (of the output's gradient with the
// other operand reversed), so gradients of any order run the same kernel.
#include <algorithm>
#include <utility>

#include <ember/audio/functional/effects.h>
#include <ember/autograd/function.h>
#include <ember/autograd/grad_mode.h>
#include <ember/ops/factories.h>

#include "effects/convolve_mode.h"
#include "effects/effect_checks.h"
#include "effects/effect_kernels.h"

namespace ember::audio {

EMBER_DEFINE_SLOT(convolve_slot, ConvolveFn, "audio.convolve");

namespace {

// The full convolution of rows x [R, N] and y [R, M] (one dtype): [R, N + M - 1].
Tensor full_convolution(const Tensor& x, const Tensor& y) {
  const Tensor xc = x.contiguous(), yc = y.contiguous();
  Tensor out = empty({x.size(0), x.size(1) + y.size(1) - 1}, x.options());
  if (out.numel() > 0) audio::effects::kernel_for(convolve_slot, xc, "convolve")(out, xc, yc);
  return out;
}

Tensor convolve_rows(const Tensor& x, const Tensor& y);

struct FullConvolution : autograd::Function<FullConvolution> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, const Tensor& y) {
    ctx->save_for_backward({x, y});
    return full_convolution(x, y);
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &y = saved[1];
    const int64_t n = x.size(1), m = y.size(1);
    Tensor grad_x, grad_y;
    // d out[k] / d x[i] = y[k - i]: grad_x[i] = sum_j g[i + j] y[j], the full
    // convolution of g with y reversed, from index m - 1 on (and likewise for y).
    if (ctx->needs_input_grad(0)) grad_x = convolve_rows(grads[0], y.flip({1})).narrow(1, m - 1, n);
    if (ctx->needs_input_grad(1)) grad_y = convolve_rows(grads[0], x.flip({1})).narrow(1, n - 1, m);
    return {grad_x, grad_y};
  }
};

Tensor convolve_rows(const Tensor& x, const Tensor& y) {
  if ((!x.requires_grad() && !y.requires_grad()) || !ember::is_grad_enabled())
    return full_convolution(x, y);
  return FullConvolution::apply(x, y);
}

}  // namespace

namespace functional {

Tensor convolve(const Tensor& x, const Tensor& y, const std::string& mode) {
  const char* op = "convolve";
  std::vector<int64_t> shape = audio::effects::check_convolve_operands(x, y, op);
  const auto cut = audio::effects::parse_convolve_mode(mode, op);
  const DType dtype = promote_types(x.dtype(), y.dtype());
  // torchaudio convolves the longer operand with the shorter one (the same
  // sums; the kernel's inner loop runs over the longer one).
  const bool swap = x.size(-1) < y.size(-1);
  const Tensor& a = swap ? y : x;
  const Tensor& b = swap ? x : y;
  auto rows = [&](const Tensor& t) {
    std::vector<int64_t> sizes = shape;
    sizes.push_back(t.size(-1));
    return t.to(dtype).expand(sizes).reshape({-1, t.size(-1)});
  };
  Tensor full = convolve_rows(rows(a), rows(b));
  shape.push_back(full.size(-1));
  return audio::effects::apply_convolve_mode(full.view(shape), x.size(-1), y.size(-1), cut);
}

}  // namespace functional
}  // namespace ember::audio
