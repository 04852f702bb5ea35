// CPU kernels of the CTC loss, following PyTorch's LossCTC.cpp: the extended
// target l' interleaves blanks (l'_s = blank for even s, l_{(s-1)/2} for odd
// s); alpha and beta are computed in log space with a max-shifted
// log-sum-exp, and the gradient with respect to the log-probabilities is
// exp(lp) - exp(log(sum alpha beta) + nll - lp) (eq. 16). Samples run in parallel.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/core/parallel.h"
#include "kernels/slots/ctc_kernels.h"

namespace ember::nn::functional {
namespace {

template <class S>
struct Sample {
  const CTCProblem& p;
  const S* lp;  // log_probs data
  int64_t N, C;
  int64_t b;
  const int64_t* tg;
  int64_t il, tl;
  S lp_at(int64_t t, int64_t c) const { return lp[(t * N + b) * C + c]; }
  int64_t prime(int64_t s) const { return s % 2 == 0 ? p.blank : tg[(s - 1) / 2]; }
};

template <class S>
S log_sum3(S a, S b, S c) {
  S m = std::max(a, std::max(b, c));
  if (m == -std::numeric_limits<S>::infinity()) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

template <class S>
void forward_typed(const CTCProblem& p, Tensor& nll_t, Tensor& alpha_t) {
  constexpr S neginf = -std::numeric_limits<S>::infinity();
  const int64_t T = p.log_probs.size(0), N = p.log_probs.size(1), C = p.log_probs.size(2);
  const int64_t L = 2 * p.max_target_length + 1;
  const S* lp = p.log_probs.data_ptr<S>();
  S* nll = nll_t.data_ptr<S>();
  S* alpha_all = alpha_t.data_ptr<S>();
  const int64_t* targets = p.targets.data_ptr<int64_t>();
  parallel_for(0, N, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const Sample<S> s{p, lp, N, C, b, targets + p.offsets[b], p.input_lengths[b], p.target_lengths[b]};
      S* la = alpha_all + b * T * L;
      std::fill(la, la + T * L, neginf);
      if (s.il == 0) {
        nll[b] = s.tl == 0 ? S(0) : std::numeric_limits<S>::infinity();
        continue;
      }
      la[0] = s.lp_at(0, p.blank);
      if (s.tl > 0) la[1] = s.lp_at(0, s.prime(1));
      for (int64_t t = 1; t < s.il; ++t) {
        const S* prev = la + (t - 1) * L;
        S* cur = la + t * L;
        for (int64_t k = 0; k <= 2 * s.tl; ++k) {
          const int64_t c = s.prime(k);
          const S a1 = prev[k];
          const S a2 = k > 0 ? prev[k - 1] : neginf;
          const S a3 = (k > 1 && s.prime(k - 2) != c) ? prev[k - 2] : neginf;
          cur[k] = log_sum3(a1, a2, a3) + s.lp_at(t, c);
        }
      }
      const S* last = la + (s.il - 1) * L;
      if (s.tl == 0) {
        nll[b] = -last[0];
      } else {
        const S l1 = last[2 * s.tl], l2 = last[2 * s.tl - 1];
        nll[b] = -log_sum3(l1, l2, neginf);
      }
    }
  });
}

template <class S>
void backward_typed(const CTCProblem& p, const Tensor& grad_out_t, const Tensor& nll_t, const Tensor& alpha_t,
                    bool zero_infinity, Tensor& grad_t) {
  constexpr S neginf = -std::numeric_limits<S>::infinity();
  const int64_t T = p.log_probs.size(0), N = p.log_probs.size(1), C = p.log_probs.size(2);
  const int64_t L = 2 * p.max_target_length + 1;
  const S* lp = p.log_probs.data_ptr<S>();
  const S* gout = grad_out_t.data_ptr<S>();
  const S* nll_all = nll_t.data_ptr<S>();
  const S* alpha_all = alpha_t.data_ptr<S>();
  S* grad = grad_t.data_ptr<S>();
  const int64_t* targets = p.targets.data_ptr<int64_t>();
  parallel_for(0, N, 1, [&](int64_t b0, int64_t b1) {
    std::vector<S> beta, acc;  // [il, 2 tl + 1] and [il, C] (log-space sums of alpha beta per class)
    for (int64_t b = b0; b < b1; ++b) {
      const Sample<S> s{p, lp, N, C, b, targets + p.offsets[b], p.input_lengths[b], p.target_lengths[b]};
      const S nll = nll_all[b];
      auto g_at = [&](int64_t t, int64_t c) -> S& { return grad[(t * N + b) * C + c]; };
      if ((zero_infinity && nll == std::numeric_limits<S>::infinity()) || s.il == 0) {
        for (int64_t t = 0; t < T; ++t)
          for (int64_t c = 0; c < C; ++c) g_at(t, c) = 0;
        continue;
      }
      const S* la = alpha_all + b * T * L;
      const int64_t W = 2 * s.tl + 1;
      beta.assign(static_cast<size_t>(s.il * W), neginf);
      acc.assign(static_cast<size_t>(s.il * C), neginf);
      auto lb = [&](int64_t t, int64_t k) -> S& { return beta[t * W + k]; };
      auto ac = [&](int64_t t, int64_t c) -> S& { return acc[t * C + c]; };
      const int64_t last = s.il - 1;
      lb(last, 2 * s.tl) = s.lp_at(last, p.blank);
      ac(last, p.blank) = la[last * L + 2 * s.tl] + lb(last, 2 * s.tl);
      if (s.tl > 0) {
        const int64_t c = s.prime(2 * s.tl - 1);
        lb(last, 2 * s.tl - 1) = s.lp_at(last, c);
        ac(last, c) = la[last * L + 2 * s.tl - 1] + lb(last, 2 * s.tl - 1);
      }
      for (int64_t t = s.il - 2; t >= 0; --t) {
        for (int64_t k = 2 * s.tl; k >= 0; --k) {
          const int64_t c = s.prime(k);
          const S b1 = lb(t + 1, k);
          const S b2 = k < 2 * s.tl ? lb(t + 1, k + 1) : neginf;
          const S b3 = (k < 2 * s.tl - 1 && s.prime(k + 2) != c) ? lb(t + 1, k + 2) : neginf;
          lb(t, k) = log_sum3(b1, b2, b3) + s.lp_at(t, c);
          const S ab = la[t * L + k] + lb(t, k);
          S& a = ac(t, c);
          if (a == neginf) {
            a = ab;
          } else {
            const S m = std::max(a, ab);
            a = std::log(std::exp(a - m) + std::exp(ab - m)) + m;
          }
        }
      }
      const S gr = gout[b];
      for (int64_t t = 0; t < s.il; ++t)
        for (int64_t c = 0; c < C; ++c) {
          const S l = s.lp_at(t, c);
          g_at(t, c) = (std::exp(l) - std::exp(ac(t, c) + nll - l)) * gr;
        }
      for (int64_t t = s.il; t < T; ++t)
        for (int64_t c = 0; c < C; ++c) g_at(t, c) = 0;
    }
  });
}

void ctc_forward_kernel(const CTCProblem& p, Tensor& nll, Tensor& log_alpha) {
  if (p.log_probs.dtype() == kFloat64) forward_typed<double>(p, nll, log_alpha);
  else forward_typed<float>(p, nll, log_alpha);
}
void ctc_backward_kernel(const CTCProblem& p, const Tensor& grad_out, const Tensor& nll, const Tensor& log_alpha,
                         bool zero_infinity, Tensor& grad) {
  if (p.log_probs.dtype() == kFloat64) backward_typed<double>(p, grad_out, nll, log_alpha, zero_infinity, grad);
  else backward_typed<float>(p, grad_out, nll, log_alpha, zero_infinity, grad);
}

}  // namespace

// log_probs float32 or float64 (what ctc_loss.cpp accepts).
EMBER_REGISTER_KERNEL_FOR_DTYPES(ctc_forward_slot, CPU, &ctc_forward_kernel, kMaskFloat);
EMBER_REGISTER_KERNEL_FOR_DTYPES(ctc_backward_slot, CPU, &ctc_backward_kernel, kMaskFloat);

}  // namespace ember::nn::functional
