#include "ember/nn/modules/padding.h"

#include <ostream>
#include <string>

#include "ember/ops/shape.h"
#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace {
std::string pad_name(PadKind k, size_t d) {
  const char* base = k == PadKind::Zero         ? "ZeroPad"
                     : k == PadKind::Constant   ? "ConstantPad"
                     : k == PadKind::Reflection ? "ReflectionPad"
                     : k == PadKind::Replication ? "ReplicationPad"
                                                 : "CircularPad";
  return base + std::to_string(d) + "d";
}
}  // namespace

template <PadKind K, size_t D>
PadImpl<K, D>::PadImpl(const Options& o) : Module(pad_name(K, D)), options(o) {
  EMBER_CHECK(o.padding.size() == 2 * D, name(), ": padding must have 1 or ", 2 * D, " values, got ",
              detail::py_tuple(o.padding));
}

template <PadKind K, size_t D>
Tensor PadImpl<K, D>::forward(const Tensor& input) {
  switch (K) {
    case PadKind::Zero: return constant_pad_nd(input, options.padding, 0);
    case PadKind::Constant: return constant_pad_nd(input, options.padding, options.value);
    case PadKind::Reflection: return pad(input, options.padding, "reflect");
    case PadKind::Replication: return pad(input, options.padding, "replicate");
    case PadKind::Circular: return pad(input, options.padding, "circular");
  }
  return input;
}

template <PadKind K, size_t D>
void PadImpl<K, D>::pretty_print(std::ostream& os) const {
  if (K == PadKind::Constant)
    os << name() << "(padding=" << detail::py_tuple(options.padding) << ", value=" << detail::py_float(options.value)
       << ")";
  else
    os << name() << "(" << detail::py_tuple(options.padding) << ")";
}

#define EMBER_INSTANTIATE_PADS(D)                   \
  template class PadImpl<PadKind::Zero, D>;         \
  template class PadImpl<PadKind::Constant, D>;     \
  template class PadImpl<PadKind::Reflection, D>;   \
  template class PadImpl<PadKind::Replication, D>;  \
  template class PadImpl<PadKind::Circular, D>;
EMBER_INSTANTIATE_PADS(1)
EMBER_INSTANTIATE_PADS(2)
EMBER_INSTANTIATE_PADS(3)

}  // namespace ember::nn
