#pragma once
// Linear, Bilinear, Identity, Flatten, Unflatten.
#include "ember/nn/module.h"

namespace ember::nn {

struct LinearOptions {
  int64_t in = 0;   // in_features
  int64_t out = 0;  // out_features
  bool bias = true;
};

// y = x W^T + b. Weight [out, in] ~ kaiming_uniform(a = sqrt 5), bias ~
// U(-1/sqrt(in), 1/sqrt(in)): PyTorch's defaults.
class LinearImpl : public Module {
 public:
  using Options = LinearOptions;
  explicit LinearImpl(const LinearOptions& options);
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions{in_features, out_features}) {}
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;

  LinearOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(Linear);

struct BilinearOptions {
  int64_t in1 = 0, in2 = 0, out = 0;
  bool bias = true;
};

class BilinearImpl : public Module {
 public:
  using Options = BilinearOptions;
  explicit BilinearImpl(const BilinearOptions& options);
  BilinearImpl(int64_t in1, int64_t in2, int64_t out) : BilinearImpl(BilinearOptions{in1, in2, out}) {}
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& os) const override;

  BilinearOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(Bilinear);

class IdentityImpl : public Module {
 public:
  IdentityImpl() : Module("Identity") {}
  Tensor forward(const Tensor& input) { return input; }
};
EMBER_MODULE(Identity);

struct FlattenOptions {
  int64_t start_dim = 1;
  int64_t end_dim = -1;
};

class FlattenImpl : public Module {
 public:
  using Options = FlattenOptions;
  explicit FlattenImpl(const FlattenOptions& options = {}) : Module("Flatten"), options(options) {}
  Tensor forward(const Tensor& input) { return input.flatten(options.start_dim, options.end_dim); }
  void pretty_print(std::ostream& os) const override;
  FlattenOptions options;
};
EMBER_MODULE(Flatten);

struct UnflattenOptions {
  int64_t dim = 0;
  std::vector<int64_t> sizes;
};

class UnflattenImpl : public Module {
 public:
  using Options = UnflattenOptions;
  explicit UnflattenImpl(const UnflattenOptions& options) : Module("Unflatten"), options(options) {}
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : UnflattenImpl(UnflattenOptions{dim, std::move(sizes)}) {}
  Tensor forward(const Tensor& input) { return input.unflatten(options.dim, options.sizes); }
  void pretty_print(std::ostream& os) const override;
  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

}  // namespace ember::nn
