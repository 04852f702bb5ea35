#pragma once
// Subset (a dataset seen through a list of indices) and random_split
// (torch.utils.data.Subset and random_split).
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/datasets/dataset.h"

namespace ember::datasets {

template <class Sample>
class Subset final : public Dataset<Sample> {
 public:
  // Sample i of the subset is dataset->get(indices[i]). Indices may repeat;
  // each must be in [0, dataset->size()).
  Subset(DatasetPtr<Sample> dataset, std::vector<int64_t> indices)
      : dataset_(std::move(dataset)), indices_(std::move(indices)) {
    EMBER_CHECK(dataset_ != nullptr, "Subset: the dataset is null");
    const int64_t n = dataset_->size();
    for (size_t i = 0; i < indices_.size(); ++i)
      EMBER_CHECK(indices_[i] >= 0 && indices_[i] < n, "Subset: index ", indices_[i], " (at position ", i,
                  ") is out of range for a dataset of size ", n);
  }

  Sample get(int64_t index) override {
    EMBER_CHECK(index >= 0 && index < size(), "Subset: index ", index,
                " is out of range for a subset of size ", size());
    return dataset_->get(indices_[static_cast<size_t>(index)]);
  }
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }

  const DatasetPtr<Sample>& dataset() const { return dataset_; }
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  DatasetPtr<Sample> dataset_;
  std::vector<int64_t> indices_;
};

template <class D>
Subset(std::shared_ptr<D>, std::vector<int64_t>) -> Subset<typename D::SampleType>;

namespace detail {
// Lengths from fractions that sum to 1 (torch's rule: floor(n * f) each, the
// remainder handed out one by one from the first split on).
std::vector<int64_t> split_lengths(int64_t n, const std::vector<double>& fractions);
// A random permutation of 0..n-1 cut into consecutive pieces of `lengths`
// (which must sum to n).
std::vector<std::vector<int64_t>> split_indices(int64_t n, const std::vector<int64_t>& lengths,
                                                Generator* generator);
}  // namespace detail

// Splits a dataset into non-overlapping random subsets of the given lengths,
// which must sum to dataset->size(). The permutation is drawn from
// `generator` (default_generator() when null), so a seeded generator gives
// the same split every run.
template <class D>
std::vector<std::shared_ptr<Subset<typename D::SampleType>>> random_split(
    std::shared_ptr<D> dataset, const std::vector<int64_t>& lengths, Generator* generator = nullptr) {
  using Sample = typename D::SampleType;
  EMBER_CHECK(dataset != nullptr, "random_split: the dataset is null");
  std::vector<std::shared_ptr<Subset<Sample>>> subsets;
  DatasetPtr<Sample> base = dataset;
  for (auto& indices : detail::split_indices(base->size(), lengths, generator))
    subsets.push_back(std::make_shared<Subset<Sample>>(base, std::move(indices)));
  return subsets;
}

// The same with fractions of the dataset's size that sum to 1, e.g. {0.8, 0.2}.
template <class D>
std::vector<std::shared_ptr<Subset<typename D::SampleType>>> random_split(
    std::shared_ptr<D> dataset, const std::vector<double>& fractions, Generator* generator = nullptr) {
  EMBER_CHECK(dataset != nullptr, "random_split: the dataset is null");
  return random_split(dataset, detail::split_lengths(dataset->size(), fractions), generator);
}

// Braced lists: {800, 200} are lengths, {0.8, 0.2} fractions.
template <class D>
auto random_split(std::shared_ptr<D> dataset, std::initializer_list<int> lengths, Generator* generator = nullptr) {
  return random_split(std::move(dataset), std::vector<int64_t>(lengths.begin(), lengths.end()), generator);
}
template <class D>
auto random_split(std::shared_ptr<D> dataset, std::initializer_list<int64_t> lengths,
                  Generator* generator = nullptr) {
  return random_split(std::move(dataset), std::vector<int64_t>(lengths), generator);
}
template <class D>
auto random_split(std::shared_ptr<D> dataset, std::initializer_list<double> fractions,
                  Generator* generator = nullptr) {
  return random_split(std::move(dataset), std::vector<double>(fractions), generator);
}

}  // namespace ember::datasets
