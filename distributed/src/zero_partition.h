#pragma once
// The parameter partition of ZeroRedundancyOptimizer: torch's sorted-greedy
// assignment (ZeroRedundancyOptimizer._partition_parameters).
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::distributed::detail {

// Splits one parameter group over rank_sizes.size() ranks: its parameters,
// largest first (a stable sort, so equal sizes keep their order), each go
// to the rank with the fewest elements so far (the lowest such rank), whose
// count grows by the parameter's numel. rank_sizes carries over from group to
// group, as in torch. Result: per rank, its parameters in assignment order.
std::vector<std::vector<Tensor>> partition_by_size(const std::vector<Tensor>& params,
                                                   std::vector<int64_t>& rank_sizes);

}  // namespace ember::distributed::detail
