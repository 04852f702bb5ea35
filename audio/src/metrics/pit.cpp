// Permutation-invariant training (utterance-level PIT), as the recipe's PIT
// module over its sdr utility.
//
// Note [PIT through the pairwise matrix]
// The recipe evaluates si_sdr once per permutation (S! * S signal pairs). Every
// permutation's utility is a mean of entries of the pairwise matrix
// M[b, i, j] = si_sdr(estimate i, reference j), so M is computed once (S * S
// pairs, one broadcast) and each permutation gathers its S entries from it.
// The values are the recipe's: the same pairs under the same formula. The max
// over permutations keeps autograd (max's gradient flows to the chosen one).
#include <ember/audio/metrics/separation.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "metrics/separation_internal.h"

namespace ember::audio::metrics {
namespace detail {

Tensor prepare_pit_mask(const char* op, const Tensor& mask, int64_t batch, int64_t time, const Tensor& like) {
  EMBER_CHECK(mask.defined(), op, ": the mask must be a defined tensor");
  const bool shape_ok = (mask.dim() == 3 && mask.size(0) == batch && mask.size(1) == 1 && mask.size(2) == time) ||
                        (mask.dim() == 2 && mask.size(0) == batch && mask.size(1) == time);
  EMBER_CHECK(shape_ok, op, ": the mask must be [", batch, ", 1, ", time, "] or [", batch, ", ", time, "], got ",
              mask.sizes());
  const std::vector<int64_t> shape{batch, 1, time};
  return prepare_mask(op, mask.reshape(shape), shape, like);
}

}  // namespace detail

namespace {

constexpr int64_t kMaxSources = 8;

}  // namespace

PitResult pit_loss(const Tensor& estimate, const Tensor& reference, const SdrOptions& options) {
  detail::check_signal_pair("pit_loss", estimate, reference);
  EMBER_CHECK(estimate.dim() == 3, "pit_loss: expected estimate and reference [batch, sources, time], got ",
              estimate.sizes());
  const int64_t batch = estimate.size(0);
  const int64_t sources = estimate.size(1);
  const int64_t time = estimate.size(2);
  EMBER_CHECK(batch > 0, "pit_loss: the batch is empty (shape ", estimate.sizes(), ")");
  EMBER_CHECK(sources >= 1 && sources <= kMaxSources, "pit_loss: expected 1 to ", kMaxSources, " sources, got ",
              sources);
  EMBER_CHECK(options.epsilon >= 0, "pit_loss: epsilon must be non-negative, got ", options.epsilon);
  std::optional<Tensor> mask;
  if (options.mask) {
    // [batch, 1, time] -> [batch, 1, 1, time] against the pairwise [batch, S, S, time].
    mask = detail::prepare_pit_mask("pit_loss", *options.mask, batch, time, estimate).unsqueeze(1);
  }
  // M[b, i, j] = si_sdr(estimate[b, i], reference[b, j]) (Note [PIT through the pairwise matrix]).
  const Tensor pairwise = detail::si_sdr_prepared(estimate.unsqueeze(2), reference.unsqueeze(1), options.zero_mean,
                                                  options.epsilon, mask);
  // The recipe's permutations in itertools order: estimate s against reference idx[s].
  std::vector<int64_t> idx(static_cast<size_t>(sources));
  std::iota(idx.begin(), idx.end(), 0);
  std::vector<std::vector<int64_t>> permutations;
  std::vector<int64_t> flat;  // entries of M (flattened per item) each permutation averages
  do {
    permutations.push_back(idx);
    for (int64_t s = 0; s < sources; ++s) flat.push_back(s * sources + idx[static_cast<size_t>(s)]);
  } while (std::next_permutation(idx.begin(), idx.end()));
  const auto count = static_cast<int64_t>(permutations.size());
  const Tensor gather_index = ember::tensor(flat, TensorOptions().dtype(kInt64).device(estimate.device()));
  const Tensor utilities =
      pairwise.reshape({batch, sources * sources}).index_select(1, gather_index).reshape({batch, count, sources}).mean({2});
  auto [best, best_index] = utilities.max(1);
  // Ties: the first maximum, so the first permutation in the recipe's order.
  const Tensor chosen = best_index.cpu();
  std::vector<int64_t> permutation_values;
  permutation_values.reserve(static_cast<size_t>(batch * sources));
  for (int64_t b = 0; b < batch; ++b) {
    const auto& matched_reference = permutations[static_cast<size_t>(chosen[b].item<int64_t>())];
    // Invert: estimate[b, permutation[j]] lines up with reference[b, j].
    std::vector<int64_t> inverse(static_cast<size_t>(sources));
    for (int64_t s = 0; s < sources; ++s) inverse[static_cast<size_t>(matched_reference[static_cast<size_t>(s)])] = s;
    permutation_values.insert(permutation_values.end(), inverse.begin(), inverse.end());
  }
  PitResult result;
  result.best_si_sdr = best;
  result.loss = -best.mean();
  result.permutation =
      ember::tensor(permutation_values, TensorOptions().dtype(kInt64)).reshape({batch, sources}).to(estimate.device());
  return result;
}

}  // namespace ember::audio::metrics
