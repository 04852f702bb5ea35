#pragma once
// Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout: active in
// training mode, the identity in eval mode (nn/functional/dropout.h).
#include "ember/nn/module.h"

namespace ember::nn {

// nn::Dropout d(0.2);  nn::Dropout2d d2({.p = 0.2, .inplace = true});
struct DropoutOptions {
  double p = 0.5;
  bool inplace = false;
};

enum class DropoutKind { Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout };

template <DropoutKind K>
class DropoutImplT : public Module {
 public:
  using Options = DropoutOptions;
  explicit DropoutImplT(const DropoutOptions& options = {});
  explicit DropoutImplT(double p, bool inplace = false) : DropoutImplT(DropoutOptions{p, inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  DropoutOptions options;
};

using DropoutImpl = DropoutImplT<DropoutKind::Dropout>;
using Dropout1dImpl = DropoutImplT<DropoutKind::Dropout1d>;
using Dropout2dImpl = DropoutImplT<DropoutKind::Dropout2d>;
using Dropout3dImpl = DropoutImplT<DropoutKind::Dropout3d>;
using AlphaDropoutImpl = DropoutImplT<DropoutKind::AlphaDropout>;
using FeatureAlphaDropoutImpl = DropoutImplT<DropoutKind::FeatureAlphaDropout>;
EMBER_MODULE(Dropout);
EMBER_MODULE(Dropout1d);
EMBER_MODULE(Dropout2d);
EMBER_MODULE(Dropout3d);
EMBER_MODULE(AlphaDropout);
EMBER_MODULE(FeatureAlphaDropout);

}  // namespace ember::nn
