// random_split's lengths and permutation (torch.utils.data.random_split).
#include <cmath>
#include <numeric>

#include "ember/core/error.h"
#include "ember/datasets/subset.h"
#include "ember/ops/random.h"

namespace ember::datasets::detail {

std::vector<int64_t> split_lengths(int64_t n, const std::vector<double>& fractions) {
  EMBER_CHECK(!fractions.empty(), "random_split: expected at least one fraction");
  double sum = 0;
  for (size_t i = 0; i < fractions.size(); ++i) {
    EMBER_CHECK(fractions[i] >= 0 && fractions[i] <= 1, "random_split: fraction at index ", i, " is ",
                fractions[i], ", not between 0 and 1");
    sum += fractions[i];
  }
  // math.isclose(sum, 1) with its default relative tolerance.
  EMBER_CHECK(std::abs(sum - 1) <= 1e-9, "random_split: fractions must sum to 1, got ", sum);
  std::vector<int64_t> lengths(fractions.size());
  int64_t assigned = 0;
  for (size_t i = 0; i < fractions.size(); ++i) {
    lengths[i] = static_cast<int64_t>(std::floor(static_cast<double>(n) * fractions[i]));
    assigned += lengths[i];
  }
  // The remainder goes one by one to the splits, first to last, round-robin.
  for (int64_t i = 0; i < n - assigned; ++i) ++lengths[static_cast<size_t>(i) % lengths.size()];
  return lengths;
}

std::vector<std::vector<int64_t>> split_indices(int64_t n, const std::vector<int64_t>& lengths,
                                                Generator* generator) {
  int64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    EMBER_CHECK(lengths[i] >= 0, "random_split: length at index ", i, " is negative (", lengths[i], ")");
    total += lengths[i];
  }
  EMBER_CHECK(total == n, "random_split: sum of input lengths (", total,
              ") does not equal the length of the input dataset (", n, ")");
  const Tensor perm = randperm(n, kInt64, generator).contiguous();
  const int64_t* p = perm.data_ptr<int64_t>();
  std::vector<std::vector<int64_t>> out;
  int64_t offset = 0;
  for (int64_t length : lengths) {
    out.emplace_back(p + offset, p + offset + length);
    offset += length;
  }
  return out;
}

}  // namespace ember::datasets::detail
