#pragma once
// Upsample (and UpsamplingNearest2d / UpsamplingBilinear2d), PixelShuffle,
// PixelUnshuffle, ChannelShuffle, Fold, Unfold: modules over
// nn/functional/sampling.h.
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/functional/sampling.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct UpsampleOptions {
  std::vector<int64_t> size = {};
  std::vector<double> scale_factor = {};
  std::string mode = "nearest";
  std::optional<bool> align_corners = std::nullopt;
  std::optional<bool> recompute_scale_factor = std::nullopt;
};

// interpolate with fixed options: nn::Upsample up({.scale_factor = {2}, .mode = "bilinear"}).
class UpsampleImpl : public Module {
 public:
  using Options = UpsampleOptions;
  explicit UpsampleImpl(const UpsampleOptions& options = {});
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  UpsampleOptions options;

 protected:
  UpsampleImpl(const char* name, const UpsampleOptions& options);
};
EMBER_MODULE(Upsample);

// Upsample with mode "nearest" / "bilinear" + align_corners (PyTorch's deprecated aliases).
class UpsamplingNearest2dImpl : public UpsampleImpl {
 public:
  using Options = UpsampleOptions;
  explicit UpsamplingNearest2dImpl(const UpsampleOptions& options = {});
};
EMBER_MODULE(UpsamplingNearest2d);
class UpsamplingBilinear2dImpl : public UpsampleImpl {
 public:
  using Options = UpsampleOptions;
  explicit UpsamplingBilinear2dImpl(const UpsampleOptions& options = {});
};
EMBER_MODULE(UpsamplingBilinear2d);

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(int64_t upscale_factor) : Module("PixelShuffle"), upscale_factor(upscale_factor) {}
  Tensor forward(const Tensor& input) { return functional::pixel_shuffle(input, upscale_factor); }
  void pretty_print(std::ostream& os) const override;
  int64_t upscale_factor;
};
EMBER_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(int64_t downscale_factor)
      : Module("PixelUnshuffle"), downscale_factor(downscale_factor) {}
  Tensor forward(const Tensor& input) { return functional::pixel_unshuffle(input, downscale_factor); }
  void pretty_print(std::ostream& os) const override;
  int64_t downscale_factor;
};
EMBER_MODULE(PixelUnshuffle);

class ChannelShuffleImpl : public Module {
 public:
  explicit ChannelShuffleImpl(int64_t groups) : Module("ChannelShuffle"), groups(groups) {}
  Tensor forward(const Tensor& input) { return functional::channel_shuffle(input, groups); }
  void pretty_print(std::ostream& os) const override;
  int64_t groups;
};
EMBER_MODULE(ChannelShuffle);

using UnfoldOptions = functional::UnfoldOptions;
using FoldOptions = functional::FoldOptions;

class UnfoldImpl : public Module {
 public:
  using Options = UnfoldOptions;
  explicit UnfoldImpl(const UnfoldOptions& options) : Module("Unfold"), options(options) {}
  Tensor forward(const Tensor& input) { return functional::unfold(input, options); }
  void pretty_print(std::ostream& os) const override;
  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

class FoldImpl : public Module {
 public:
  using Options = FoldOptions;
  explicit FoldImpl(const FoldOptions& options) : Module("Fold"), options(options) {}
  Tensor forward(const Tensor& input) { return functional::fold(input, options); }
  void pretty_print(std::ostream& os) const override;
  FoldOptions options;
};
EMBER_MODULE(Fold);

}  // namespace ember::nn
