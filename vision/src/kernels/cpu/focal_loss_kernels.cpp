// CPU kernels of the fused sigmoid_focal_loss, forward and backward.
//
// Note [Fused focal loss]
// ~~~~~~~~~~~~~~~~~~~~~~~
// torchvision's sigmoid_focal_loss is a chain of eight elementwise ops
// (sigmoid, BCE with logits, p_t, 1 - p_t, pow, alpha_t, two products), each
// a pass over the [anchors, classes] logits with its own tensor kept for
// autograd. Here the forward is one pass writing only the loss, and the
// backward one pass that recomputes p from the saved inputs:
//   p = sigmoid(x), ce = BCE(x, t), m = 1 - p_t = 1 - (p t + (1 - p)(1 - t)),
//   loss = a_t ce m^g,
//   d loss / dx = a_t ((p - t) m^g + ce g m^(g - 1) (1 - 2t) p (1 - p)),
// with a_t = alpha t + (1 - alpha)(1 - t) (1 when alpha < 0) and the g m^(g-1)
// term 0 when g == 0 (torch's pow backward). The arithmetic is done in double
// for both dtypes; ce is torch's stable form (1 - t) x + mx + log(e^-mx +
// e^(-x-mx)), mx = max(-x, 0).
#include <cmath>
#include <cstdint>

#include <ember/core/parallel.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {
namespace {

struct FocalTerms {
  double ce, m, p, alpha_t;
};

inline FocalTerms focal_terms(double x, double t, double alpha) {
  const double mx = x < 0 ? -x : 0.0;
  const double ce = (1 - t) * x + mx + std::log(std::exp(-mx) + std::exp(-x - mx));
  const double p = 1.0 / (1.0 + std::exp(-x));
  const double m = 1 - (p * t + (1 - p) * (1 - t));
  const double alpha_t = alpha >= 0 ? alpha * t + (1 - alpha) * (1 - t) : 1.0;
  return {ce, m, p, alpha_t};
}

// torch.pow(m, g): 1 for g == 0 (even m == 0).
inline double pow_gamma(double m, double g) { return g == 0 ? 1.0 : (g == 2 ? m * m : std::pow(m, g)); }

constexpr int64_t kGrain = 4096;

template <class T>
void forward_impl(Tensor& out, const Tensor& inputs, const Tensor& targets, double alpha, double gamma) {
  const T* x = inputs.data_ptr<T>();
  const T* t = targets.data_ptr<T>();
  T* o = out.data_ptr<T>();
  parallel_for(0, inputs.numel(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const FocalTerms f = focal_terms(x[i], t[i], alpha);
      o[i] = static_cast<T>(f.alpha_t * (f.ce * pow_gamma(f.m, gamma)));
    }
  });
}

template <class T>
void backward_impl(Tensor& grad_input, const Tensor& grad, const Tensor& inputs, const Tensor& targets, double alpha,
                   double gamma, double scale) {
  const T* x = inputs.data_ptr<T>();
  const T* t = targets.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  const bool scalar = grad.numel() == 1 && inputs.numel() != 1;
  T* gi = grad_input.data_ptr<T>();
  parallel_for(0, inputs.numel(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const double ti = t[i];
      const FocalTerms f = focal_terms(x[i], ti, alpha);
      const double dm = (1 - 2 * ti) * f.p * (1 - f.p);
      const double dpow = gamma == 0 ? 0.0 : gamma * pow_gamma(f.m, gamma - 1) * dm;
      const double d = f.alpha_t * ((f.p - ti) * pow_gamma(f.m, gamma) + f.ce * dpow);
      gi[i] = static_cast<T>(static_cast<double>(scalar ? g[0] : g[i]) * scale * d);
    }
  });
}

void focal_loss_forward_kernel(Tensor& out, const Tensor& inputs, const Tensor& targets, double alpha, double gamma) {
  if (inputs.dtype() == kFloat64) return forward_impl<double>(out, inputs, targets, alpha, gamma);
  forward_impl<float>(out, inputs, targets, alpha, gamma);
}

void focal_loss_backward_kernel(Tensor& grad_input, const Tensor& grad, const Tensor& inputs, const Tensor& targets,
                                double alpha, double gamma, double scale) {
  if (inputs.dtype() == kFloat64) return backward_impl<double>(grad_input, grad, inputs, targets, alpha, gamma, scale);
  backward_impl<float>(grad_input, grad, inputs, targets, alpha, gamma, scale);
}

constexpr uint32_t kFloatMask = dtype_bit(kFloat32) | dtype_bit(kFloat64);

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(focal_loss_forward_slot, CPU, focal_loss_forward_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(focal_loss_backward_slot, CPU, focal_loss_backward_kernel, kFloatMask);

}  // namespace ember::vision
