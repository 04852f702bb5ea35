#pragma once
// The base of every vision transform (torchvision.transforms on tensors).
//
// A transform is an nn::Module whose forward maps an image, or a batch of
// images, shaped [..., C, H, W] (uint8, or floating point with values in
// [0, 1]) to the transformed image. Random transforms draw their parameters
// from default_generator(), so `manual_seed(s)` or a `GeneratorScope` (the
// DataLoader installs one per sample) makes them reproducible.
//
// Every transform can be saved (its type name and parameters, as JSON) and
// rebuilt, so a deployed app loads its preprocessing with its model:
//
//   auto preprocess = transforms::Compose({transforms::Resize(256), transforms::CenterCrop(224),
//                                          transforms::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})});
//   transforms::save("preprocess.json", *preprocess);
//   transforms::TransformPtr same = transforms::load("preprocess.json");
//   Tensor x = (*same)(image);
//
// Writing a transform: derive from TransformImpl, implement forward() and
// params() (the values its constructor needs), declare the holder with
// EMBER_TRANSFORM(Name), and add its factory to the registry of its family
// (src/transforms/registry.h).
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <ember/nn/module.h>
#include <ember/core/ivalue.h>

namespace ember::vision::transforms {

// The parameters a transform is saved with: names mapped to plain values
// (None, bool, int, float, str, list of floats), written as JSON by
// serialize::json (Note [Plain values in JSON]).
using Params = ValueMap;

class TransformImpl : public nn::Module {
 public:
  explicit TransformImpl(std::string type_name) : nn::Module(std::move(type_name)) {}

  // Transforms an image or a batch of images, [..., C, H, W].
  virtual Tensor forward(const Tensor& image) = 0;

  // The values that rebuild this transform through its registered factory.
  // Child transforms (of Compose, RandomApply...) are registered submodules
  // and are saved with it, in order.
  virtual Params params() const = 0;

  // "Name(key=value, ...)" from params().
  void pretty_print(std::ostream& os) const override;

  Tensor operator()(const Tensor& image) { return forward(image); }
};

using TransformPtr = std::shared_ptr<TransformImpl>;

// The handle users hold (`transforms::Resize r(256); r(image)`), convertible to
// TransformPtr so that holders go straight into Compose's list.
template <class Impl>
class TransformHolder : public nn::ModuleHolder<Impl> {
 public:
  using nn::ModuleHolder<Impl>::ModuleHolder;
  operator TransformPtr() const { return this->ptr(); }
};

}  // namespace ember::vision::transforms

// Declares `Name` as the holder of `NameImpl`.
#define EMBER_TRANSFORM(Name)                                                  \
  class Name : public ::ember::vision::transforms::TransformHolder<Name##Impl> { \
   public:                                                                     \
    using ::ember::vision::transforms::TransformHolder<Name##Impl>::TransformHolder; \
  }

// The same for a transform whose constructor takes the list of its child
// transforms first, so that `Compose({Resize(256), CenterCrop(224)})` works (a
// braced list cannot go through the holder's forwarding constructor).
#define EMBER_TRANSFORM_LIST(Name)                                                        \
  class Name : public ::ember::vision::transforms::TransformHolder<Name##Impl> {          \
   public:                                                                                \
    using ::ember::vision::transforms::TransformHolder<Name##Impl>::TransformHolder;      \
    template <class... Rest>                                                              \
    Name(std::vector<::ember::vision::transforms::TransformPtr> transforms, Rest&&... rest) \
        : ::ember::vision::transforms::TransformHolder<Name##Impl>(                      \
              std::make_shared<Name##Impl>(std::move(transforms), std::forward<Rest>(rest)...)) {} \
  }
