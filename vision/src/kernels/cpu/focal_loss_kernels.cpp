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
// term 0 when g == 0 (torch's pow backward). ce is the stable form
// (1 - t) x + max(-x, 0) + log1p(e), e = exp(-|x|), and p is 1 / (1 + e) or
// e / (1 + e) by the sign of x, so each element costs one exp and one log1p
// (torch's chain takes three exps and a log). The arithmetic is in the
// input's own precision: float32 inputs on float (glibc's expf / log1pf are
// accurate to about an ulp; the fixtures agree to 1e-5, as torch's
// own float32 chain), float64 on double. Elements go in blocks of kBlock:
// first e and log1p(e) for the block, with glibc's vector math (libmvec's
// AVX2 expf / log1pf, 8 lanes: float32 spends most of its time there
// otherwise), then the arithmetic, branch-free so that the compiler
// vectorizes it.
#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__AVX2__)
#include <immintrin.h>
// glibc's libmvec (linked through libm.so's AS_NEEDED group): the AVX2
// variants of expf and log1pf, under their vector-ABI names.
extern "C" __m256 _ZGVdN8v_expf(__m256);
extern "C" __m256 _ZGVdN8v_log1pf(__m256);
#endif

#include <ember/core/parallel.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {
namespace {

constexpr int64_t kGrain = 4096;
constexpr int kBlock = 256;

// e[j] = exp(-|x[j]|) and l[j] = log1p(e[j]) for j < n.
template <class T>
void exp_and_log1p(const T* x, T* e, T* l, int n) {
  for (int j = 0; j < n; ++j) {
    e[j] = std::exp(-std::fabs(x[j]));
    l[j] = std::log1p(e[j]);
  }
}

#if defined(__AVX2__)
template <>
void exp_and_log1p<float>(const float* x, float* e, float* l, int n) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 ev = _ZGVdN8v_expf(_mm256_or_ps(_mm256_loadu_ps(x + j), sign));  // exp(-|x|)
    _mm256_storeu_ps(e + j, ev);
    _mm256_storeu_ps(l + j, _ZGVdN8v_log1pf(ev));
  }
  for (; j < n; ++j) {
    e[j] = std::exp(-std::fabs(x[j]));
    l[j] = std::log1p(e[j]);
  }
}
#endif

// The per-element terms from x, t and the block's e = exp(-|x|), l = log1p(e).
template <class T>
struct FocalTerms {
  T ce, m, p, alpha_t;
};

template <class T>
inline FocalTerms<T> focal_terms(T x, T t, T e, T l, T alpha) {
  const T ce = (1 - t) * x + (x < 0 ? -x : T(0)) + l;
  const T p = (x >= 0 ? T(1) : e) / (1 + e);
  const T m = 1 - (p * t + (1 - p) * (1 - t));
  const T alpha_t = alpha >= 0 ? alpha * t + (1 - alpha) * (1 - t) : T(1);
  return {ce, m, p, alpha_t};
}

// torch.pow(m, g): 1 for g == 0 (even m == 0).
template <class T>
inline T pow_gamma(T m, T g) {
  return g == 0 ? T(1) : (g == 2 ? m * m : std::pow(m, g));
}

template <class T>
void forward_impl(Tensor& out, const Tensor& inputs, const Tensor& targets, double alpha, double gamma) {
  const T* x = inputs.data_ptr<T>();
  const T* t = targets.data_ptr<T>();
  T* o = out.data_ptr<T>();
  const T a = static_cast<T>(alpha), g = static_cast<T>(gamma);
  parallel_for(0, inputs.numel(), kGrain, [&](int64_t begin, int64_t end) {
    T e[kBlock], l[kBlock];
    for (int64_t b = begin; b < end; b += kBlock) {
      const int n = static_cast<int>(std::min<int64_t>(kBlock, end - b));
      exp_and_log1p(x + b, e, l, n);
      for (int j = 0; j < n; ++j) {
        const FocalTerms<T> f = focal_terms<T>(x[b + j], t[b + j], e[j], l[j], a);
        o[b + j] = f.alpha_t * (f.ce * pow_gamma<T>(f.m, g));
      }
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
  const T a = static_cast<T>(alpha), gm = static_cast<T>(gamma), sc = static_cast<T>(scale);
  parallel_for(0, inputs.numel(), kGrain, [&](int64_t begin, int64_t end) {
    T e[kBlock], l[kBlock];
    for (int64_t b = begin; b < end; b += kBlock) {
      const int n = static_cast<int>(std::min<int64_t>(kBlock, end - b));
      exp_and_log1p(x + b, e, l, n);
      for (int j = 0; j < n; ++j) {
        const T ti = t[b + j];
        const FocalTerms<T> f = focal_terms<T>(x[b + j], ti, e[j], l[j], a);
        const T dm = (1 - 2 * ti) * f.p * (1 - f.p);
        const T dpow = gm == 0 ? T(0) : gm * pow_gamma<T>(f.m, gm - 1) * dm;
        const T d = f.alpha_t * ((f.p - ti) * pow_gamma<T>(f.m, gm) + f.ce * dpow);
        gi[b + j] = (scalar ? g[0] : g[b + j]) * sc * d;
      }
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
