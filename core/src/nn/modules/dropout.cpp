#include "ember/nn/modules/dropout.h"

#include <ostream>

#include "ember/nn/functional/dropout.h"
#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace {
const char* dropout_name(DropoutKind k) {
  switch (k) {
    case DropoutKind::Dropout: return "Dropout";
    case DropoutKind::Dropout1d: return "Dropout1d";
    case DropoutKind::Dropout2d: return "Dropout2d";
    case DropoutKind::Dropout3d: return "Dropout3d";
    case DropoutKind::AlphaDropout: return "AlphaDropout";
    case DropoutKind::FeatureAlphaDropout: return "FeatureAlphaDropout";
  }
  return "Dropout";
}
}  // namespace

template <DropoutKind K>
DropoutImplT<K>::DropoutImplT(const DropoutOptions& o) : Module(dropout_name(K)), options(o) {
  EMBER_CHECK(o.p >= 0 && o.p <= 1, dropout_name(K), ": dropout probability has to be between 0 and 1, but got ",
              o.p);
}

template <DropoutKind K>
Tensor DropoutImplT<K>::forward(const Tensor& input) {
  namespace F = functional;
  const double p = options.p;
  const bool train = is_training(), inplace = options.inplace;
  switch (K) {
    case DropoutKind::Dropout: return F::dropout(input, p, train, inplace);
    case DropoutKind::Dropout1d: return F::dropout1d(input, p, train, inplace);
    case DropoutKind::Dropout2d: return F::dropout2d(input, p, train, inplace);
    case DropoutKind::Dropout3d: return F::dropout3d(input, p, train, inplace);
    case DropoutKind::AlphaDropout: return F::alpha_dropout(input, p, train, inplace);
    case DropoutKind::FeatureAlphaDropout: return F::feature_alpha_dropout(input, p, train, inplace);
  }
  return input;
}

template <DropoutKind K>
void DropoutImplT<K>::pretty_print(std::ostream& os) const {
  os << name() << "(p=" << detail::py_float(options.p) << ", inplace=" << detail::py_bool(options.inplace) << ")";
}

template class DropoutImplT<DropoutKind::Dropout>;
template class DropoutImplT<DropoutKind::Dropout1d>;
template class DropoutImplT<DropoutKind::Dropout2d>;
template class DropoutImplT<DropoutKind::Dropout3d>;
template class DropoutImplT<DropoutKind::AlphaDropout>;
template class DropoutImplT<DropoutKind::FeatureAlphaDropout>;

}  // namespace ember::nn
