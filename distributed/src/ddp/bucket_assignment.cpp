#include <ember/distributed/ddp/bucket_assignment.h>

#include <algorithm>
#include <map>

#include <ember/core/error.h>

namespace ember::distributed {

std::vector<std::vector<size_t>> compute_bucket_assignment_by_size(const std::vector<Tensor>& params,
                                                                   const std::vector<size_t>& order,
                                                                   int64_t first_bucket_bytes, int64_t bucket_bytes) {
  EMBER_CHECK(first_bucket_bytes > 0 && bucket_bytes > 0, "compute_bucket_assignment_by_size: bucket limits must be "
              "positive, got ", first_bucket_bytes, " and ", bucket_bytes, " bytes");
  EMBER_CHECK(order.size() == params.size(), "compute_bucket_assignment_by_size: the order lists ", order.size(),
              " parameters, expected ", params.size());
  std::vector<char> seen(params.size(), 0);
  for (size_t i : order) {
    EMBER_CHECK(i < params.size() && !seen[i], "compute_bucket_assignment_by_size: the order must list each of the ",
                params.size(), " parameters once (bad or repeated index ", i, ")");
    seen[i] = 1;
  }
  struct Open {
    std::vector<size_t> members;
    int64_t bytes = 0;
    bool first = true;  // the dtype's first bucket
  };
  std::map<DType, Open> open;
  std::vector<std::vector<size_t>> buckets;
  for (size_t i : order) {
    Open& bucket = open[params[i].dtype()];
    bucket.members.push_back(i);
    bucket.bytes += params[i].numel() * static_cast<int64_t>(element_size(params[i].dtype()));
    if (bucket.bytes >= (bucket.first ? first_bucket_bytes : bucket_bytes)) {
      buckets.push_back(std::move(bucket.members));
      bucket.members.clear();
      bucket.bytes = 0;
      bucket.first = false;
    }
  }
  for (auto& [dtype, bucket] : open)
    if (!bucket.members.empty()) buckets.push_back(std::move(bucket.members));
  std::vector<size_t> position(params.size());
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  std::stable_sort(buckets.begin(), buckets.end(), [&](const auto& a, const auto& b) {
    return position[a.front()] < position[b.front()];
  });
  return buckets;
}

}  // namespace ember::distributed
