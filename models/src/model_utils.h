#pragma once
// Helpers the model families share: torchvision's _make_divisible, the input
// check, and walking a model's layers of one type (for weight initialisation).
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/module.h>

namespace ember::models::detail {

// torchvision's _make_divisible (from the TF MobileNet code): v rounded to the
// nearest multiple of divisor, at least min_value (default divisor), and never
// more than 10% below v.
inline int64_t make_divisible(double v, int64_t divisor, std::optional<int64_t> min_value = std::nullopt) {
  const int64_t lo = min_value.value_or(divisor);
  int64_t new_v = std::max(lo, static_cast<int64_t>(v + static_cast<double>(divisor) / 2) / divisor * divisor);
  if (static_cast<double>(new_v) < 0.9 * v) new_v += divisor;
  return new_v;
}

// images must be a floating [N, 3, H, W] batch; errors name the model.
inline void check_images(const Tensor& images, const char* model) {
  EMBER_CHECK(images.defined(), model, ": the input is undefined");
  EMBER_CHECK(images.dim() == 4 && images.size(1) == 3, model, ": expected images [N, 3, H, W], got ",
              images.sizes());
  EMBER_CHECK(is_floating_point(images.dtype()), model, ": expected floating point images, got ", images.dtype());
}

// Calls fn(layer) for every module of type Impl in the tree (self included),
// in PyTorch's modules() order.
template <class Impl, class Fn>
void for_each_layer(nn::Module& root, Fn&& fn) {
  for (const auto& m : root.modules())
    if (auto* layer = dynamic_cast<Impl*>(m.get())) fn(*layer);
}

}  // namespace ember::models::detail
