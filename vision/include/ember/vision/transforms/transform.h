#pragma once
// The base of every vision transform (torchvision.transforms on tensors):
// the suite's TransformImpl (ember/transforms/transform.h), whose forward maps
// an image, or a batch of images, shaped [..., C, H, W] (uint8, or floating
// point with values in [0, 1]) to the transformed image.
//
//   auto preprocess = transforms::Compose({transforms::Resize(256), transforms::CenterCrop(224),
//                                          transforms::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})});
//   transforms::save("preprocess.json", *preprocess);
//   transforms::TransformPtr same = transforms::load("preprocess.json");
//   Tensor x = (*same)(image);
//
// Writing a transform: derive from TransformImpl, implement forward() and
// params(), declare the holder with EMBER_TRANSFORM(Name), and add its
// factory to the registry of its family (src/transforms/registry.h).
#include <ember/transforms/transform.h>

namespace ember::vision::transforms {

using ::ember::transforms::Params;
using ::ember::transforms::TransformHolder;
using ::ember::transforms::TransformImpl;
using ::ember::transforms::TransformPtr;

}  // namespace ember::vision::transforms
