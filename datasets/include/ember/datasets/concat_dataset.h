#pragma once
// ConcatDataset: several map-style datasets one after another
// (torch.utils.data.ConcatDataset).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/datasets/dataset.h"

namespace ember::datasets {

template <class Sample>
class ConcatDataset final : public Dataset<Sample> {
 public:
  // Sizes are read once, here (as torch's cumulative_sizes).
  explicit ConcatDataset(std::vector<DatasetPtr<Sample>> datasets) : datasets_(std::move(datasets)) {
    EMBER_CHECK(!datasets_.empty(), "ConcatDataset: expected at least one dataset");
    int64_t total = 0;
    for (size_t i = 0; i < datasets_.size(); ++i) {
      EMBER_CHECK(datasets_[i] != nullptr, "ConcatDataset: dataset ", i, " is null");
      total += datasets_[i]->size();
      cumulative_sizes_.push_back(total);
    }
  }

  Sample get(int64_t index) override {
    EMBER_CHECK(index >= 0 && index < size(), "ConcatDataset: index ", index,
                " is out of range for a dataset of size ", size());
    // The first dataset whose cumulative size exceeds index holds it.
    const size_t d = static_cast<size_t>(
        std::upper_bound(cumulative_sizes_.begin(), cumulative_sizes_.end(), index) - cumulative_sizes_.begin());
    const int64_t offset = d == 0 ? 0 : cumulative_sizes_[d - 1];
    return datasets_[d]->get(index - offset);
  }
  int64_t size() const override { return cumulative_sizes_.back(); }

  const std::vector<DatasetPtr<Sample>>& datasets() const { return datasets_; }
  // Running totals of the sizes: {size0, size0 + size1, ...}.
  const std::vector<int64_t>& cumulative_sizes() const { return cumulative_sizes_; }

 private:
  std::vector<DatasetPtr<Sample>> datasets_;
  std::vector<int64_t> cumulative_sizes_;
};

}  // namespace ember::datasets
