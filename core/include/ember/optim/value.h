#pragma once
// optim::Value and optim::Dict: the values of an optimizer's parameter-group
// options and per-parameter state (the values a Python dict holds there:
// None, bool, int, float, str, a list of floats such as Adam's betas, a
// tensor, a list of tensors) are ember::IValue (ember/core/ivalue.h), and a
// Dict, like the dicts of torch.optim's param_groups and state, is an
// ember::ValueMap. These names stay for code written against them
// (docs/optim.md).
#include "ember/core/ivalue.h"

namespace ember::optim {

using Value = ember::IValue;
using Dict = ember::ValueMap;

}  // namespace ember::optim
