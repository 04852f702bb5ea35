#include "ember/models/detection/matcher.h"

#include <ember/core/error.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/indexing.h>
#include <ember/ops/reduce.h>

namespace ember::models::detection {

Matcher::Matcher(double high_threshold, double low_threshold, bool allow_low_quality_matches)
    : high_threshold_(high_threshold),
      low_threshold_(low_threshold),
      allow_low_quality_matches_(allow_low_quality_matches) {
  EMBER_CHECK(low_threshold <= high_threshold, "Matcher: low_threshold should be <= high_threshold, got ",
              low_threshold, " and ", high_threshold);
}

Tensor Matcher::operator()(const Tensor& quality) const {
  EMBER_CHECK(quality.dim() == 2, "Matcher: match_quality_matrix must be [M ground truths, N predictions], got ",
              quality.sizes());
  EMBER_CHECK(is_floating_point(quality.dtype()), "Matcher: match_quality_matrix must be floating point, got ",
              quality.dtype());
  if (quality.numel() == 0) {
    // torchvision: empty targets or proposals are not supported during training.
    EMBER_CHECK(quality.size(0) != 0, "Matcher: No ground-truth boxes available for one of the images during training");
    EMBER_FAIL("Matcher: No proposal boxes available for one of the images during training");
  }
  // Best ground truth of each prediction (the first on ties).
  auto [matched_vals, matches] = max(quality, 0);
  Tensor all_matches = allow_low_quality_matches_ ? matches.clone() : Tensor();
  const Tensor below_low = matched_vals < low_threshold_;
  const Tensor between = (matched_vals >= low_threshold_).logical_and(matched_vals < high_threshold_);
  matches.masked_fill_(below_low, BELOW_LOW_THRESHOLD);
  matches.masked_fill_(between, BETWEEN_THRESHOLDS);
  if (allow_low_quality_matches_) {
    // For each ground truth, the predictions of its highest quality (ties
    // included) get back their best ground truth, however low.
    const Tensor highest = std::get<0>(max(quality, 1));
    const Tensor pred_inds = nonzero_numpy(quality == highest.unsqueeze(1))[1];
    matches.index_put_({pred_inds}, all_matches.index({pred_inds}));
  }
  return matches;
}

}  // namespace ember::models::detection
