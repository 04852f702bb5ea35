#pragma once
// The base of every transform of the suite: vision's (torchvision.transforms)
// and audio's (torchaudio.transforms) derive from it, and the containers
// (Compose, RandomApply, ...) take either.
//
// A transform is an nn::Module whose forward maps one input (an image
// [..., C, H, W], a waveform [..., time], a spectrogram [..., freq, time]) to
// its result. Random transforms draw their parameters from
// default_generator(), so `manual_seed(s)` or a `GeneratorScope` (the
// DataLoader installs one per sample) makes them reproducible.
//
// Every transform can be saved (its type name and parameters, as JSON) and
// rebuilt, so a deployed app loads its preprocessing with its model
// (ember/transforms/serialize.h).
//
// Writing a transform: derive from TransformImpl, implement forward() and
// params() (the values its constructor needs), declare the holder with
// EMBER_TRANSFORM(Name), and add its factory to its library's family
// (register_transform_family in serialize.h).
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/ivalue.h>
#include <ember/nn/module.h>

namespace ember::transforms {

// The parameters a transform is saved with: names mapped to plain values
// (None, bool, int, float, str, list of floats), written as JSON by
// serialize::json (Note [Plain values in JSON]).
using Params = ValueMap;

// What every transform shares, whatever it maps: a type name, the params
// that rebuild it, and its child transforms (registered submodules). Tensor
// transforms (vision, audio) derive from TransformImpl below; transforms of
// other values (text's, on strings and token lists) derive from this
// directly, and all of them save and load through one registry
// (ember/transforms/serialize.h).
class TransformBase : public nn::Module {
 public:
  explicit TransformBase(std::string type_name) : nn::Module(std::move(type_name)) {}

  // The values that rebuild this transform through its registered factory.
  // Child transforms (of Compose, RandomApply...) are registered submodules
  // and are saved with it, in order.
  virtual Params params() const = 0;

  // "Name(key=value, ...)" from params().
  void pretty_print(std::ostream& os) const override;
};

using AnyTransformPtr = std::shared_ptr<TransformBase>;

// A transform of tensors: an image, a waveform, a spectrogram.
class TransformImpl : public TransformBase {
 public:
  explicit TransformImpl(std::string type_name) : TransformBase(std::move(type_name)) {}

  // Transforms one input (or a batch of them).
  virtual Tensor forward(const Tensor& input) = 0;

  // This transform followed by `next` on `input` in one pass, when the pair
  // has a fused form (vision's ConvertImageDtype then Normalize); nullopt
  // otherwise. Compose asks each adjacent pair. The result must equal
  // next.forward(forward(input)).
  virtual std::optional<Tensor> forward_fused(const TransformImpl& /*next*/, const Tensor& /*input*/) {
    return std::nullopt;
  }

  Tensor operator()(const Tensor& input) { return forward(input); }
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

}  // namespace ember::transforms

// Declares `Name` as the holder of `NameImpl`.
#define EMBER_TRANSFORM(Name)                                                     \
  class Name : public ::ember::transforms::TransformHolder<Name##Impl> {          \
   public:                                                                        \
    using ::ember::transforms::TransformHolder<Name##Impl>::TransformHolder;      \
  }

// The same for a transform whose constructor takes the list of its child
// transforms first, so that `Compose({Resize(256), CenterCrop(224)})` works (a
// braced list cannot go through the holder's forwarding constructor).
#define EMBER_TRANSFORM_LIST(Name)                                                                \
  class Name : public ::ember::transforms::TransformHolder<Name##Impl> {                          \
   public:                                                                                        \
    using ::ember::transforms::TransformHolder<Name##Impl>::TransformHolder;                      \
    template <class... Rest>                                                                      \
    Name(std::vector<::ember::transforms::TransformPtr> transforms, Rest&&... rest)               \
        : ::ember::transforms::TransformHolder<Name##Impl>(                                       \
              std::make_shared<Name##Impl>(std::move(transforms), std::forward<Rest>(rest)...)) {} \
  }
