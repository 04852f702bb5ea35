#pragma once
// Transforms made of transforms (Compose = Sequential, RandomApply,
// RandomChoice, RandomOrder, Lambda): the suite's containers
// (ember/transforms/containers.h), usable with vision and audio transforms alike.
#include <ember/transforms/containers.h>

#include "ember/vision/transforms/transform.h"

namespace ember::vision::transforms {

using ::ember::transforms::Compose;
using ::ember::transforms::ComposeImpl;
using ::ember::transforms::Lambda;
using ::ember::transforms::LambdaImpl;
using ::ember::transforms::RandomApply;
using ::ember::transforms::RandomApplyImpl;
using ::ember::transforms::RandomChoice;
using ::ember::transforms::RandomChoiceImpl;
using ::ember::transforms::RandomOrder;
using ::ember::transforms::RandomOrderImpl;
using ::ember::transforms::register_lambda;
using ::ember::transforms::Sequential;

}  // namespace ember::vision::transforms
