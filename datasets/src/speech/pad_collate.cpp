#include "ember/datasets/speech/pad_collate.h"

namespace ember::datasets::speech_detail {

Tensor pad_frames(const Tensor& w, int64_t frames) {
  std::vector<int64_t> sizes(w.sizes().begin(), w.sizes().end());
  sizes.back() = frames;
  Tensor out = zeros(sizes, w.options());
  out.narrow(-1, 0, w.size(-1)).copy_(w);
  return out;
}

}  // namespace ember::datasets::speech_detail
