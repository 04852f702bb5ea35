#include "zero_partition.h"

#include <algorithm>

namespace ember::distributed::detail {

std::vector<std::vector<Tensor>> partition_by_size(const std::vector<Tensor>& params,
                                                   std::vector<int64_t>& rank_sizes) {
  std::vector<std::vector<Tensor>> per_rank(rank_sizes.size());
  std::vector<Tensor> sorted = params;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Tensor& a, const Tensor& b) { return a.numel() > b.numel(); });
  for (const Tensor& p : sorted) {
    const auto rank = static_cast<size_t>(std::min_element(rank_sizes.begin(), rank_sizes.end()) - rank_sizes.begin());
    per_rank[rank].push_back(p);
    rank_sizes[rank] += p.numel();
  }
  return per_rank;
}

}  // namespace ember::distributed::detail
