#pragma once
// The `transform` and `target_transform` arguments of the dataset formats
// (torchvision.datasets' callables).
//
// An ImageTransform holds a vision transform (a TransformPtr, or a holder such
// as `transforms::Resize(256)` or `transforms::Compose({...})`) or any callable
// Tensor(const Tensor&). An empty one means "no transform". Datasets call it
// from the DataLoader's worker threads at the same time, so the callable must
// be safe to call concurrently (vision transforms are: random ones draw from
// the thread's default generator).
#include <concepts>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include <ember/core/tensor.h>
#include <ember/vision/transforms/transform.h>

namespace ember::datasets {

class ImageTransform {
 public:
  ImageTransform() = default;
  ImageTransform(std::nullptr_t) {}  // NOLINT: "no transform", as Python's None
  // A vision transform, or a holder of one (Resize, Compose...).
  template <class T>
  requires std::is_convertible_v<const T&, vision::transforms::TransformPtr> ImageTransform(
      const T& transform) {  // NOLINT: implicit, as passing a callable
    vision::transforms::TransformPtr ptr = transform;
    if (ptr) fn_ = [ptr](const Tensor& image) { return ptr->forward(image); };
  }
  // Any other callable Tensor(const Tensor&).
  template <class F>
  requires(!std::is_convertible_v<const F&, vision::transforms::TransformPtr> &&
           !std::is_same_v<std::remove_cvref_t<F>, ImageTransform> &&
           !std::is_same_v<std::remove_cvref_t<F>, std::nullptr_t> &&
           std::is_invocable_r_v<Tensor, F&, const Tensor&>) ImageTransform(F fn)
      : fn_(std::move(fn)) {}  // NOLINT: implicit, as passing a callable

  explicit operator bool() const { return static_cast<bool>(fn_); }
  Tensor operator()(const Tensor& image) const { return fn_ ? fn_(image) : image; }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};

// A class-index target transform (int64 -> int64). Empty means none.
using TargetTransform = std::function<int64_t(int64_t)>;

}  // namespace ember::datasets
