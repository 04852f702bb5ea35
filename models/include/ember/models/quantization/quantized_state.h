#pragma once
// The state of a converted (quantized) model as a StateDict that ember::save
// writes to safetensors (quantized tensors keep their scale, zero point and
// axis there: docs/quantization.md, "Serialization"), and its loading into a
// model converted the same way. Ember's own format for Ember's checkpoints;
// torch's quantized state_dicts load through load_quantized_state_dict.
//
//   ember::save("q.safetensors", quantized_state_dict(*qmodel));
//   // later: rebuild, fuse, prepare, convert (any calibration), then
//   load_quantized_state(*qmodel2, ember::load("q.safetensors"));   // outputs equal qmodel's exactly
//
// Entries per module (<p> its path):
//   quantized Conv2d / ConvReLU2d / Linear / LinearReLU: <p>.weight (qint8, per
//     tensor or per channel), <p>.bias (float; absent when the module has none),
//     <p>.scale (0-d float64) and <p>.zero_point (0-d int64) of the output;
//   Quantize, QFunctional, Hardswish, LeakyReLU, ELU: <p>.scale, <p>.zero_point
//     (torch keeps a quantized Hardswish's in no state_dict; Ember does);
//   quantized BatchNorm2d / BNReLU2d: weight, bias, running_mean, running_var,
//     scale, zero_point;
//   any other module: its own registered parameters and buffers (modules left
//     float, e.g. an unconverted head).
// Observers and fake quantizers (and everything under them) are not saved:
// a converted model needs none.
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/nn/module.h>

namespace ember::models::quantization {

StateDict quantized_state_dict(nn::Module& model);

// Overwrites every quantized module's weight, bias, scale and zero point (and
// the float modules' tensors) from `state`, which quantized_state_dict wrote
// for a model of the same architecture converted the same way (module types
// must match). A missing entry, a wrong shape or a weight that is not qint8 is
// an ember::Error naming the key; with strict, so is an entry no module reads.
// Returns the keys read.
std::vector<std::string> load_quantized_state(nn::Module& model, const StateDict& state, bool strict = true);

}  // namespace ember::models::quantization
