#include "ember/datasets/fake_data.h"

#include <ember/core/error.h>
#include <ember/core/generator.h>
#include <ember/ops/random.h>

#include "format_util.h"

namespace ember::datasets {

FakeData::FakeData(FakeDataOptions options) : options_(std::move(options)) {
  EMBER_CHECK(options_.size >= 0, "FakeData: size must be >= 0, got ", options_.size);
  EMBER_CHECK(options_.num_classes > 0, "FakeData: num_classes must be positive, got ",
              options_.num_classes);
  EMBER_CHECK(options_.image_size.size() == 3, "FakeData: image_size must be [C, H, W], got ",
              IntArrayRef(options_.image_size));
  for (int64_t s : options_.image_size)
    EMBER_CHECK(s > 0, "FakeData: image_size must be positive, got ",
                IntArrayRef(options_.image_size));
}

std::pair<Tensor, int64_t> FakeData::get(int64_t index) {
  detail::check_index("FakeData", index, size());
  // torchvision: torch.manual_seed(index + random_offset); img = randn(C, H, W);
  // target = randint(0, num_classes, (1,)); ToPILImage maps img to uint8 by
  // img.mul(255).byte(), which truncates toward zero and wraps modulo 256.
  Generator generator(static_cast<uint64_t>(index + options_.random_offset));
  Tensor values = randn(options_.image_size, {}, &generator);
  Tensor image = (values * 255).to(kInt64).to(kUInt8);
  int64_t target = randint_scalar(0, options_.num_classes, &generator);
  if (options_.transform) image = options_.transform(image);
  if (options_.target_transform) target = options_.target_transform(target);
  return {std::move(image), target};
}

}  // namespace ember::datasets
