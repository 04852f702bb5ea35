#pragma once
// <ember/torch.h>, part 5b: saving and loading samplers as libtorch does
// (torch::save(sampler, path), sampler.save(archive), `archive << sampler`):
// their positions as int64 tensor buffers under libtorch's keys, so a
// libtorch program resumes an epoch that Ember saved, and the other way round
// (compat.libtorch_exchange). Here rather than in samplers.h so that the data
// headers do not pull in the archive (and with it nn and optim).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/torch/archive.h"
#include "ember/torch/data/samplers.h"
#include "ember/torch/data/samplers_distributed.h"

namespace torch::data::samplers {

namespace detail {
inline Tensor index_tensor(size_t v) { return ::ember::scalar_tensor(static_cast<int64_t>(v), ::ember::TensorOptions(::ember::kInt64)); }
// libtorch reads each value into an int64 tensor and takes item<int64_t>().
inline size_t read_index(serialize::InputArchive& archive, const std::string& key, const char* who) {
  Tensor t;
  archive.read(key, t, /*is_buffer=*/true);
  EMBER_CHECK(t.numel() == 1, who, "::load: '", key, "' has ", t.numel(), " elements, not 1");
  const int64_t v = t.to(::ember::kInt64).item<int64_t>();
  EMBER_CHECK(v >= 0, who, "::load: '", key, "' is negative (", v, ")");
  return static_cast<size_t>(v);
}
}  // namespace detail

inline void SequentialSampler::save(serialize::OutputArchive& archive) const {
  archive.write("index", detail::index_tensor(index_), /*is_buffer=*/true);
}
inline void SequentialSampler::load(serialize::InputArchive& archive) {
  index_ = detail::read_index(archive, "index", "SequentialSampler");
}

inline void RandomSampler::save(serialize::OutputArchive& archive) const {
  archive.write("index", detail::index_tensor(index_), /*is_buffer=*/true);
  std::vector<int64_t> indices(indices_.begin(), indices_.end());
  archive.write("indices", ::ember::tensor(indices), /*is_buffer=*/true);
}
inline void RandomSampler::load(serialize::InputArchive& archive) {
  const size_t index = detail::read_index(archive, "index", "RandomSampler");
  Tensor indices;
  archive.read("indices", indices, /*is_buffer=*/true);
  EMBER_CHECK(indices.dim() == 1, "RandomSampler::load: 'indices' has ", indices.dim(), " dimensions, not 1");
  EMBER_CHECK(index <= static_cast<size_t>(indices.numel()), "RandomSampler::load: index ", index, " is past the ",
              indices.numel(), " indices");
  const Tensor flat = indices.to(::ember::kInt64).contiguous();
  const int64_t* p = flat.data_ptr<int64_t>();
  indices_.assign(p, p + flat.numel());
  size_ = flat.numel();
  index_ = index;
}

inline void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  archive.write("sample_index_", detail::index_tensor(sample_index_), /*is_buffer=*/true);
  archive.write("epoch_", detail::index_tensor(epoch_), /*is_buffer=*/true);
}
inline void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  epoch_ = detail::read_index(archive, "epoch_", "DistributedRandomSampler");
  reset(size_);  // the saved epoch's shuffle
  const size_t index = detail::read_index(archive, "sample_index_", "DistributedRandomSampler");
  EMBER_CHECK(index >= begin_index_ && index <= end_index_, "DistributedRandomSampler::load: sample_index_ ", index,
              " is outside this rank's range [", begin_index_, ", ", end_index_, "]");
  sample_index_ = index;
}

inline void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  archive.write("sample_index_", detail::index_tensor(sample_index_), /*is_buffer=*/true);
}
inline void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  const size_t index = detail::read_index(archive, "sample_index_", "DistributedSequentialSampler");
  EMBER_CHECK(index >= begin_index_ && index <= end_index_, "DistributedSequentialSampler::load: sample_index_ ",
              index, " is outside this rank's range [", begin_index_, ", ", end_index_, "]");
  sample_index_ = index;
}

inline void StreamSampler::save(serialize::OutputArchive& archive) const {
  archive.write("examples_retrieved_so_far", detail::index_tensor(examples_retrieved_so_far_), /*is_buffer=*/true);
}
inline void StreamSampler::load(serialize::InputArchive& archive) {
  examples_retrieved_so_far_ = detail::read_index(archive, "examples_retrieved_so_far", "StreamSampler");
}

// libtorch's operator<< / >> for samplers (torch/data/samplers/serialize.h).
template <class BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}
template <class BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

}  // namespace torch::data::samplers

namespace torch {
// torch::save(sampler, path) / torch::load(sampler, path), as libtorch's.
template <class BatchRequest>
void save(const data::samplers::Sampler<BatchRequest>& sampler, const std::string& path) {
  serialize::OutputArchive archive;
  sampler.save(archive);
  archive.save_to(path);
}
template <class BatchRequest>
void load(data::samplers::Sampler<BatchRequest>& sampler, const std::string& path) {
  serialize::InputArchive archive;
  archive.load_from(path);
  sampler.load(archive);
}
}  // namespace torch
