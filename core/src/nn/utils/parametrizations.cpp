// nn::utils::parametrizations: _Orthogonal, _SpectralNorm and _WeightNorm
// (torch/nn/utils/parametrizations.py; _WeightNorm as in PyTorch 2.1).
#include "ember/nn/utils/parametrizations.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/random.h"
#include "ember/ops/shape.h"

namespace ember::nn::utils::parametrizations {

using parametrize::Originals;
using parametrize::Parametrization;

namespace {

// The tensor `name` of the module as PyTorch's getattr sees it.
Tensor tensor_of(Module& module, const std::string& name) {
  if (parametrize::is_parametrized(module, name)) return parametrize::get(module, name);
  const Tensor* t = module.own_parameters().find(name);
  if (!t) t = module.own_buffers().find(name);
  EMBER_CHECK(t != nullptr && t->defined(), "Module '", module.name(), "' has no parameter or buffer with name '",
              name, "'");
  return *t;
}

std::vector<int64_t> batch_shape(const Tensor& t, int64_t n, int64_t k) {
  std::vector<int64_t> s(t.sizes().begin(), t.sizes().end() - 2);
  s.push_back(n);
  s.push_back(k);
  return s;
}

// F.normalize(x, dim=0, eps).
Tensor normalize(const Tensor& x, double eps) { return x / x.norm().clamp_min(eps); }

// ---- orthogonal ----

enum class OrthMap { matrix_exp, cayley, householder };

bool is_orthogonal(const Tensor& Q) {
  const int64_t n = Q.size(-2), k = Q.size(-1);
  const double eps =
      10.0 * n * (Q.dtype() == kFloat32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon());
  return allclose(Q.mT().matmul(Q), eye(k, Q.options()).expand(batch_shape(Q, k, k)), 1e-5, eps);
}

// The Q of A = QR with diag(R) >= 0 (A tall).
Tensor make_orthogonal(const Tensor& A) {
  auto [X, tau] = geqrf(A);
  Tensor Q = linalg::householder_product(X, tau);
  return Q * X.diagonal(0, -2, -1).sgn().unsqueeze(-2);
}

class Orthogonal : public Parametrization {
 public:
  Orthogonal(const Tensor& weight, OrthMap map, bool use_trivialization)
      : Parametrization("_Orthogonal"), shape_(weight.sizes().vec()), map_(map), trivialization_(use_trivialization) {
    if (use_trivialization) register_buffer("base", Tensor(), &base);
  }

  Tensor forward(const Tensor& X_in) override {
    Tensor X = X_in;
    int64_t n = X.size(-2), k = X.size(-1);
    const bool transposed = n < k;
    if (transposed) {
      X = X.mT();
      std::swap(n, k);
    }
    Tensor Q;
    if (map_ == OrthMap::matrix_exp || map_ == OrthMap::cayley) {
      X = X.tril();
      if (n != k) X = cat({X, zeros(batch_shape(X, n, n - k), X.options())}, -1);
      const Tensor A = X - X.mT();
      if (map_ == OrthMap::matrix_exp) {
        Q = linalg::matrix_exp(A);
      } else {
        const Tensor I = eye(n, A.options());
        Q = linalg::solve(I - A * 0.5, I + A * 0.5);
      }
      if (n != k) Q = Q.narrow(-1, 0, k);
    } else {
      const Tensor A = X.tril(-1);
      const Tensor tau = 2.0 / (1.0 + (A * A).sum({-2}));
      Q = linalg::householder_product(A, tau);
      Q = Q * X.diagonal(0, -2, -1).detach().trunc().unsqueeze(-2);  // PyTorch: X.diagonal().int()
    }
    if (base.defined()) Q = base.matmul(Q);
    if (transposed) Q = Q.mT();
    return Q;
  }

  Originals right_inverse(const Tensor& Q_in) override {
    NoGradGuard no_grad;
    EMBER_CHECK(Q_in.sizes() == IntArrayRef(shape_), "Expected a matrix or batch of matrices of shape ",
                Q_in.sizes(), ". Got a tensor of shape ", Q_in.sizes(), ".");
    Tensor Q = Q_in;
    int64_t n = Q.size(-2), k = Q.size(-1);
    const bool transpose = n < k;
    if (transpose) {
      Q = Q.mT();
      std::swap(n, k);
    }
    if (!trivialization_) {
      // Not possible for matrix_exp / cayley (PyTorch raises NotImplementedError).
      if (map_ != OrthMap::householder) return {};
      auto [A, tau] = geqrf(Q);
      Tensor d = A.diagonal(0, -2, -1);
      d.copy_(d.sign() * (1.0 - (tau == 0).to(d.dtype()) * 2.0));
      return transpose ? A.mT() : A;
    }
    if (n == k) {
      Q = is_orthogonal(Q) ? Q.clone() : make_orthogonal(Q);
    } else {
      const Tensor N = randn(batch_shape(Q, n, n - k), Q.options());
      Q = make_orthogonal(cat({Q, N}, -1));
    }
    unregister("base");
    register_buffer("base", Q, &base);
    Tensor neg_id = zeros_like(Q_in);
    neg_id.diagonal(0, -2, -1).fill_(-1.0);
    return neg_id;
  }

  Tensor base;

 private:
  std::vector<int64_t> shape_;
  OrthMap map_;
  bool trivialization_;
};

// ---- spectral norm ----

class SpectralNorm : public Parametrization {
 public:
  SpectralNorm(const Tensor& weight, int64_t n_power_iterations, int64_t dim, double eps)
      : Parametrization("_SpectralNorm"), eps_(eps), ndim_(weight.dim()) {
    EMBER_CHECK(dim < ndim_ && dim >= -ndim_, "Dimension out of range (expected to be in range of [", -ndim_, ", ",
                ndim_ - 1, "] but got ", dim, ")");
    EMBER_CHECK(n_power_iterations > 0, "Expected n_power_iterations to be positive, but got n_power_iterations=",
                n_power_iterations);
    dim_ = dim >= 0 ? dim : dim + ndim_;
    if (ndim_ > 1) {
      n_power_iterations_ = n_power_iterations;
      NoGradGuard no_grad;
      const Tensor W = to_matrix(weight);
      const int64_t h = W.size(0), w = W.size(1);
      register_buffer("_u", normalize(empty({h}, W.options()).normal_(0, 1), eps_), &u_);
      register_buffer("_v", normalize(empty({w}, W.options()).normal_(0, 1), eps_), &v_);
      power_method(W, 15);
    }
  }

  Tensor forward(const Tensor& weight) override {
    if (weight.dim() == 1) return weight / weight.norm().clamp_min(eps_);
    const Tensor W = to_matrix(weight);
    if (is_training()) power_method(W, n_power_iterations_);
    const Tensor u = u_.clone(), v = v_.clone();
    const Tensor sigma = u.dot(W.mv(v));
    return weight / sigma;
  }

  Originals right_inverse(const Tensor& value) override { return value; }

 private:
  Tensor to_matrix(const Tensor& weight) const {
    Tensor w = weight;
    if (dim_ != 0) {
      std::vector<int64_t> perm{dim_};
      for (int64_t d = 0; d < w.dim(); ++d)
        if (d != dim_) perm.push_back(d);
      w = w.permute(perm);
    }
    return w.flatten(1);
  }

  void power_method(const Tensor& W_in, int64_t iterations) {
    NoGradGuard no_grad;
    const Tensor W = W_in.detach();
    for (int64_t i = 0; i < iterations; ++i) {
      u_.copy_(normalize(W.mv(v_), eps_));
      v_.copy_(normalize(W.t().mv(u_), eps_));
    }
  }

  double eps_;
  int64_t ndim_, dim_ = 0, n_power_iterations_ = 1;
  Tensor u_, v_;
};

// ---- weight norm ----

// torch.norm_except_dim(v, 2, dim): dim == -1 is the norm of everything.
Tensor norm_except_dim(const Tensor& v, int64_t dim) {
  if (dim == -1) return v.norm();
  if (dim < 0) dim += v.dim();
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < v.dim(); ++d)
    if (d != dim) dims.push_back(d);
  return v.norm(2, dims, /*keepdim=*/true);
}

class WeightNorm : public Parametrization {
 public:
  explicit WeightNorm(int64_t dim) : Parametrization("_WeightNorm"), dim_(dim) {}
  Tensor forward(const std::vector<Tensor>& originals) override {
    EMBER_CHECK(originals.size() == 2, "_WeightNorm takes (weight_g, weight_v), got ", originals.size(), " tensors");
    const Tensor& g = originals[0];
    const Tensor& v = originals[1];
    return v * (g / norm_except_dim(v, dim_));
  }
  Originals right_inverse(const Tensor& weight) override {
    return std::vector<Tensor>{norm_except_dim(weight, dim_), weight};
  }

 private:
  int64_t dim_;
};

}  // namespace

Module& orthogonal(Module& module, const std::string& name, const std::optional<std::string>& orthogonal_map,
                   bool use_trivialization) {
  const Tensor weight = tensor_of(module, name);
  EMBER_CHECK(weight.dim() >= 2, "Expected a matrix or batch of matrices. Got a tensor of ", weight.dim(),
              " dimensions.");
  const std::string map = orthogonal_map.value_or(
      weight.size(-2) == weight.size(-1) || weight.is_complex() ? "matrix_exp" : "householder");
  OrthMap e;
  if (map == "matrix_exp")
    e = OrthMap::matrix_exp;
  else if (map == "cayley")
    e = OrthMap::cayley;
  else if (map == "householder")
    e = OrthMap::householder;
  else
    EMBER_CHECK(false, "orthogonal_map has to be one of \"matrix_exp\", \"cayley\", \"householder\". Got: ", map);
  EMBER_CHECK(!(weight.is_complex() && e == OrthMap::householder),
              "The householder parametrization does not support complex tensors.");
  parametrize::register_parametrization(module, name, std::make_shared<Orthogonal>(weight, e, use_trivialization),
                                        /*unsafe=*/true);
  return module;
}

Module& spectral_norm(Module& module, const std::string& name, int64_t n_power_iterations, double eps,
                      std::optional<int64_t> dim) {
  const Tensor weight = tensor_of(module, name);
  if (!dim) {
    std::string type = module.name();
    if (type.rfind("Parametrized", 0) == 0) type = type.substr(12);
    dim = type.rfind("ConvTranspose", 0) == 0 ? 1 : 0;
  }
  parametrize::register_parametrization(module, name,
                                        std::make_shared<SpectralNorm>(weight, n_power_iterations, *dim, eps));
  return module;
}

Module& weight_norm(Module& module, const std::string& name, std::optional<int64_t> dim) {
  tensor_of(module, name);
  parametrize::register_parametrization(module, name, std::make_shared<WeightNorm>(dim.value_or(-1)),
                                        /*unsafe=*/true);
  return module;
}

}  // namespace ember::nn::utils::parametrizations
