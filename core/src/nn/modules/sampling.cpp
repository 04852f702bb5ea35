#include "ember/nn/modules/sampling.h"

#include <ostream>

#include "nn/modules/py_repr.h"

namespace ember::nn {

using detail::py_floats;
using detail::py_ints;

UpsampleImpl::UpsampleImpl(const UpsampleOptions& o) : UpsampleImpl("Upsample", o) {}
UpsampleImpl::UpsampleImpl(const char* name, const UpsampleOptions& o) : Module(name), options(o) {}

Tensor UpsampleImpl::forward(const Tensor& input) {
  return functional::interpolate(input, {.size = options.size,
                                         .scale_factor = options.scale_factor,
                                         .mode = options.mode,
                                         .align_corners = options.align_corners,
                                         .recompute_scale_factor = options.recompute_scale_factor});
}

void UpsampleImpl::pretty_print(std::ostream& os) const {
  os << name() << "(";
  if (!options.scale_factor.empty()) {
    os << "scale_factor=";
    os << py_floats(options.scale_factor);
  } else {
    os << "size=";
    if (options.size.empty())
      os << "None";
    else
      os << py_ints(options.size);
  }
  os << ", mode=" << options.mode << ")";
}

UpsamplingNearest2dImpl::UpsamplingNearest2dImpl(const UpsampleOptions& o)
    : UpsampleImpl("UpsamplingNearest2d", [&] {
        UpsampleOptions n = o;
        n.mode = "nearest";
        return n;
      }()) {}

UpsamplingBilinear2dImpl::UpsamplingBilinear2dImpl(const UpsampleOptions& o)
    : UpsampleImpl("UpsamplingBilinear2d", [&] {
        UpsampleOptions n = o;
        n.mode = "bilinear";
        n.align_corners = true;
        return n;
      }()) {}

void PixelShuffleImpl::pretty_print(std::ostream& os) const {
  os << "PixelShuffle(upscale_factor=" << upscale_factor << ")";
}
void PixelUnshuffleImpl::pretty_print(std::ostream& os) const {
  os << "PixelUnshuffle(downscale_factor=" << downscale_factor << ")";
}
void ChannelShuffleImpl::pretty_print(std::ostream& os) const { os << "ChannelShuffle(groups=" << groups << ")"; }

void UnfoldImpl::pretty_print(std::ostream& os) const {
  os << "Unfold(kernel_size=";
  os << py_ints(options.kernel_size);
  os << ", dilation=";
  os << py_ints(options.dilation);
  os << ", padding=";
  os << py_ints(options.padding);
  os << ", stride=";
  os << py_ints(options.stride);
  os << ")";
}

void FoldImpl::pretty_print(std::ostream& os) const {
  os << "Fold(output_size=";
  os << py_ints(options.output_size);
  os << ", kernel_size=";
  os << py_ints(options.kernel_size);
  os << ", dilation=";
  os << py_ints(options.dilation);
  os << ", padding=";
  os << py_ints(options.padding);
  os << ", stride=";
  os << py_ints(options.stride);
  os << ")";
}

}  // namespace ember::nn
