// CTC greedy (best path) decoding.
#include <ember/audio/decoders/ctc.h>

#include "decoders/ctc_input.h"

namespace ember::audio::decoders {

std::vector<std::vector<int64_t>> ctc_greedy_decode(const Tensor& log_probs, const std::optional<Tensor>& lengths,
                                                    int64_t blank, bool batch_first) {
  const auto frames = detail::read_ctc_frames("ctc_greedy_decode", log_probs, lengths, blank, batch_first);
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(frames.batch));
  for (int64_t n = 0; n < frames.batch; ++n) {
    int64_t previous = blank;
    for (int64_t t = 0; t < frames.lengths[static_cast<size_t>(n)]; ++t) {
      const double* row = frames.frame(n, t);
      int64_t best = 0;
      for (int64_t c = 1; c < frames.classes; ++c) {
        if (row[c] > row[best]) best = c;
      }
      if (best != blank && best != previous) out[static_cast<size_t>(n)].push_back(best);
      previous = best;
    }
  }
  return out;
}

}  // namespace ember::audio::decoders
