#pragma once
// The map-style dataset interface (torch.utils.data.Dataset); iterable
// datasets are in iterable_dataset.h.
//
// A map-style dataset has a size and returns sample i. Samples are values of
// any type the collate function understands: a Tensor, a std::pair or
// std::tuple (an image and its label: std::pair<Tensor, int64_t>), a vector,
// a map, or a struct the user describes for collation.
//
// get() is called from the DataLoader's worker threads at the same time:
// implementations must be safe to call concurrently (read-only state, or
// their own locking).
#include <cstdint>
#include <memory>
#include <optional>

namespace ember::datasets {

template <class Sample>
class Dataset {
 public:
  using SampleType = Sample;
  virtual ~Dataset() = default;
  // Sample `index`, 0 <= index < size(); out of range is an ember::Error.
  virtual Sample get(int64_t index) = 0;
  virtual int64_t size() const = 0;
};

template <class Sample>
using DatasetPtr = std::shared_ptr<Dataset<Sample>>;

}  // namespace ember::datasets
