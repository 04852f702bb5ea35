#include "ember/nn/init.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/random.h"
#include "iter/tensor_iterator.h"
#include "kernels/slots/special_gamma_kernels.h"

namespace ember::nn::init {

namespace {
void check_defined(const Tensor& t, const char* op) { EMBER_CHECK(t.defined(), "init.", op, ": tensor is undefined"); }

// erfinv of x on x's device, through ember::special's kernel slot (nn sits
// below the special layer, so it calls the slot rather than special::erfinv).
Tensor erfinv_of(const Tensor& x) {
  TensorIterator iter("init.trunc_normal_");
  iter.add_output(Tensor()).add_input(x);
  iter.build();
  special_gamma_unary_slot(iter.device())(iter, SpecialGammaUnaryOp::Erfinv);
  iter.finish();
  return iter.output();
}
}  // namespace

namespace {
thread_local bool skip_init = false;
}  // namespace

SkipInitGuard::SkipInitGuard() : prev_(skip_init) { skip_init = true; }
SkipInitGuard::~SkipInitGuard() { skip_init = prev_; }
bool is_init_skipped() { return skip_init; }

double calculate_gain(const std::string& nl, double param) {
  if (nl == "linear" || nl == "conv1d" || nl == "conv2d" || nl == "conv3d" || nl == "conv_transpose1d" ||
      nl == "conv_transpose2d" || nl == "conv_transpose3d" || nl == "sigmoid")
    return 1;
  if (nl == "tanh") return 5.0 / 3;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (nl == "selu") return 3.0 / 4;
  EMBER_FAIL("init.calculate_gain: unsupported nonlinearity '", nl, "'");
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  EMBER_CHECK(t.dim() >= 2, "init: fan in and fan out can not be computed for a tensor with fewer than 2 dimensions "
              "(sizes ", t.sizes(), ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

Tensor& uniform_(Tensor& t, double a, double b, Generator* g) {
  check_defined(t, "uniform_");
  if (skip_init) return t;
  NoGradGuard no_grad;
  t.uniform_(a, b, g);
  return t;
}

Tensor& normal_(Tensor& t, double mean, double std, Generator* g) {
  check_defined(t, "normal_");
  if (skip_init) return t;
  NoGradGuard no_grad;
  t.normal_(mean, std, g);
  return t;
}

Tensor& trunc_normal_(Tensor& t, double mean, double std, double a, double b, Generator* g) {
  check_defined(t, "trunc_normal_");
  EMBER_CHECK(a < b, "init.trunc_normal_: a (", a, ") must be below b (", b, ")");
  if (skip_init) return t;
  NoGradGuard no_grad;
  auto norm_cdf = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
  const double l = norm_cdf((a - mean) / std), u = norm_cdf((b - mean) / std);
  // PyTorch's steps (uniform, erfinv, scale, shift, clamp), in float64 on t's device.
  Tensor v = empty(t.sizes(), t.options().dtype(kFloat64)).uniform_(2 * l - 1, 2 * u - 1, g);
  v = erfinv_of(v).mul_(std * std::sqrt(2.0)).add_(mean).clamp_(a, b);
  t.copy_(v);
  return t;
}

Tensor& constant_(Tensor& t, double value) {
  check_defined(t, "constant_");
  if (skip_init) return t;
  NoGradGuard no_grad;
  t.fill_(value);
  return t;
}
Tensor& ones_(Tensor& t) { return constant_(t, 1); }
Tensor& zeros_(Tensor& t) { return constant_(t, 0); }

Tensor& eye_(Tensor& t) {
  EMBER_CHECK(t.dim() == 2, "init.eye_: only 2-d tensors are supported, got sizes ", t.sizes());
  if (skip_init) return t;
  NoGradGuard no_grad;
  t.copy_(eye(t.size(0), t.size(1), t.options()));
  return t;
}

Tensor& dirac_(Tensor& t, int64_t groups) {
  EMBER_CHECK(t.dim() >= 3 && t.dim() <= 5, "init.dirac_: only 3, 4 or 5-d tensors are supported, got sizes ",
              t.sizes());
  EMBER_CHECK(groups > 0 && t.size(0) % groups == 0, "init.dirac_: dim 0 (", t.size(0), ") must be divisible by groups (",
              groups, ")");
  if (skip_init) return t;
  NoGradGuard no_grad;
  t.zero_();
  const int64_t out_per_group = t.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, t.size(1));
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < min_dim; ++d) {
      Tensor e = t.select(0, g * out_per_group + d).select(0, d);
      for (int64_t k = 0; k + 2 < t.dim(); ++k) e = e.select(0, t.size(k + 2) / 2);
      e.fill_(1);
    }
  return t;
}

Tensor& xavier_uniform_(Tensor& t, double gain, Generator* g) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return uniform_(t, -std::sqrt(3.0) * std, std::sqrt(3.0) * std, g);
}

Tensor& xavier_normal_(Tensor& t, double gain, Generator* g) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return normal_(t, 0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)), g);
}

namespace {
double kaiming_std(const Tensor& t, double a, FanMode mode, const std::string& nonlinearity, const char* op) {
  check_defined(t, op);
  EMBER_CHECK(t.numel() > 0, "init.", op, ": initializing a zero-element tensor is a no-op");
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const int64_t fan = mode == FanMode::FanIn ? fan_in : fan_out;
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

Tensor& kaiming_uniform_(Tensor& t, double a, FanMode mode, const std::string& nonlinearity, Generator* g) {
  if (t.defined() && t.numel() == 0) return t;
  const double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nonlinearity, "kaiming_uniform_");
  return uniform_(t, -bound, bound, g);
}

Tensor& kaiming_normal_(Tensor& t, double a, FanMode mode, const std::string& nonlinearity, Generator* g) {
  if (t.defined() && t.numel() == 0) return t;
  return normal_(t, 0, kaiming_std(t, a, mode, nonlinearity, "kaiming_normal_"), g);
}

Tensor& orthogonal_(Tensor& t, double gain, Generator* g) {
  EMBER_CHECK(t.dim() >= 2, "init.orthogonal_: only tensors with 2 or more dimensions are supported, got sizes ",
              t.sizes());
  if (t.numel() == 0 || skip_init) return t;
  NoGradGuard no_grad;
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  // PyTorch's recipe: Q of the QR of a normal matrix (float64, on t's
  // device), its columns' signs fixed so that R's diagonal is positive.
  const bool transpose = rows < cols;
  Tensor a = randn({rows, cols}, t.options().dtype(kFloat64), g);
  if (transpose) a = a.t();
  auto [q, r] = linalg::qr(a);
  q = q * r.diagonal().sign();
  Tensor result = transpose ? q.t() : q;
  t.copy_((result * gain).reshape(t.sizes()));
  return t;
}

Tensor& sparse_(Tensor& t, double sparsity, double std, Generator* g) {
  EMBER_CHECK(t.dim() == 2, "init.sparse_: only 2-d tensors are supported, got sizes ", t.sizes());
  EMBER_CHECK(sparsity >= 0 && sparsity <= 1, "init.sparse_: sparsity must be in [0, 1], got ", sparsity);
  if (skip_init) return t;
  NoGradGuard no_grad;
  const int64_t rows = t.size(0), cols = t.size(1);
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  t.normal_(0, std, g);
  for (int64_t c = 0; c < cols; ++c) {
    Tensor idx = randperm(rows, TensorOptions(kInt64).device(t.device()), g).slice(0, 0, num_zeros);
    t.select(1, c).index_fill_(0, idx, 0);
  }
  return t;
}

}  // namespace ember::nn::init
