#pragma once
// Padding layers over ember::pad: ZeroPad1-3d, ConstantPad1-3d,
// ReflectionPad1-3d, ReplicationPad1-3d, CircularPad1-3d.
//
//   nn::ReflectionPad2d pad(2);                          // (2, 2, 2, 2)
//   nn::ZeroPad2d zpad({1, 1, 2, 0});                    // (left, right, top, bottom)
//   nn::ConstantPad1d cpad(nn::ConstantPad1dOptions({1, 2}, 3.5));
#include <initializer_list>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// `padding`: one value for every side, or (left, right) pairs starting from
// the last dim (2 * D values). `value` is used by ConstantPad only.
template <size_t D>
struct PadOptions {
  PadOptions(int64_t padding, double value = 0) : padding(2 * D, padding), value(value) {}
  PadOptions(std::initializer_list<int64_t> padding, double value = 0) : padding(padding), value(value) {}
  PadOptions(std::vector<int64_t> padding, double value = 0) : padding(std::move(padding)), value(value) {}
  std::vector<int64_t> padding;
  double value = 0;
};

enum class PadKind { Zero, Constant, Reflection, Replication, Circular };

template <PadKind K, size_t D>
class PadImpl : public Module {
 public:
  using Options = PadOptions<D>;
  explicit PadImpl(const Options& options);
  PadImpl(int64_t padding, double value)
    requires(K == PadKind::Constant)
      : PadImpl(Options(padding, value)) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  Options options;
};

#define EMBER_PAD_MODULES(D)                                          \
  using ZeroPad##D##dImpl = PadImpl<PadKind::Zero, D>;                \
  using ConstantPad##D##dImpl = PadImpl<PadKind::Constant, D>;        \
  using ReflectionPad##D##dImpl = PadImpl<PadKind::Reflection, D>;    \
  using ReplicationPad##D##dImpl = PadImpl<PadKind::Replication, D>;  \
  using CircularPad##D##dImpl = PadImpl<PadKind::Circular, D>;        \
  using ZeroPad##D##dOptions = PadOptions<D>;                         \
  using ConstantPad##D##dOptions = PadOptions<D>;                     \
  using ReflectionPad##D##dOptions = PadOptions<D>;                   \
  using ReplicationPad##D##dOptions = PadOptions<D>;                  \
  using CircularPad##D##dOptions = PadOptions<D>;                     \
  EMBER_MODULE(ZeroPad##D##d);                                        \
  EMBER_MODULE(ConstantPad##D##d);                                    \
  EMBER_MODULE(ReflectionPad##D##d);                                  \
  EMBER_MODULE(ReplicationPad##D##d);                                 \
  EMBER_MODULE(CircularPad##D##d)
EMBER_PAD_MODULES(1);
EMBER_PAD_MODULES(2);
EMBER_PAD_MODULES(3);
#undef EMBER_PAD_MODULES

}  // namespace ember::nn
