#pragma once
// Collation: how the samples of a batch become one batch value
// (torch.utils.data.default_collate).
//
// default_collate(std::vector<Sample>) recurses through the sample's type:
//
//   sample element                 batch element
//   Tensor [s...]                  Tensor [B, s...] (stacked along a new dim 0; same shapes)
//   bool / integer / float,double  1-d Tensor [B]: bool, int64 (int8, uint8, int16 keep
//                                  their dtype), float32 / float64
//   std::string                    std::vector<std::string>
//   std::pair<A, B>                std::pair<batch of A, batch of B>
//   std::tuple<A...>               std::tuple<batch of A...>
//   std::array<T, N>               std::array<batch of T, N>
//   std::vector<T> (same length)   std::vector<batch of T>: element j batches element j of
//                                  every sample (torch's rule for lists)
//   std::map<std::string, T>       std::map<std::string, batch of T> (same keys)
//   a described struct             its batch struct, field by field (below)
//
// Describing a struct. Give it a static collate_fields() listing, for each
// field, its name, the member of the sample and the member of the batch
// struct that receives the batched value:
//
//   struct SampleBatch { Tensor image; Tensor label; std::vector<std::string> path; };
//   struct Sample {
//     Tensor image;
//     int64_t label;
//     std::string path;
//     static constexpr auto collate_fields() {
//       return std::tuple{collate_field("image", &Sample::image, &SampleBatch::image),
//                         collate_field("label", &Sample::label, &SampleBatch::label),
//                         collate_field("path", &Sample::path, &SampleBatch::path)};
//     }
//   };
//   // default_collate(std::vector<Sample>) is a SampleBatch.
//
// A struct whose fields batch to their own types (all Tensors, say) can be
// its own batch type: collate_field("image", &Pair::image) names one member
// for both. For a type you cannot edit, specialize CollateFields<T> with the
// same static fields() function instead. For full control over one type
// (padding variable-length sequences, say), specialize Collate<T> (a Batch
// type and a static apply(std::vector<T>&&, const CollatePath&)), or give the
// DataLoader a collate function of your own.
//
// Errors name where in the sample the offending values sit, e.g.
// "default_collate: sample.image: tensors in a batch must have the same
// shape, got [3, 32, 32] in batch element 0 and [3, 28, 28] in batch element 5".
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/ops/factories.h"

namespace ember::datasets {

// Where a value sits inside a sample ("sample.image", "sample[1]['boxes']"),
// kept as a chain of frames on the stack while collation recurses and turned
// into text only for an error message.
struct CollatePath {
  enum class Kind { Root, Index, Key, Field };
  const CollatePath* parent = nullptr;
  Kind kind = Kind::Root;
  std::string_view name{};
  size_t index = 0;

  CollatePath at_index(size_t i) const { return {this, Kind::Index, {}, i}; }
  CollatePath at_key(std::string_view key) const { return {this, Kind::Key, key, 0}; }
  CollatePath at_field(std::string_view field) const { return {this, Kind::Field, field, 0}; }
  std::string str() const;
};

// The primary template has no definition body that works: a type the default
// collation does not know fails to compile with this message.
template <class T>
struct Collate {
  static_assert(sizeof(T) == 0,
                "default_collate: no collation for this sample type. Give the struct a static "
                "collate_fields() (see ember/datasets/collate.h), specialize Collate<T>, or pass the "
                "DataLoader a collate function");
};

// The batch type default_collate makes from samples of type T.
template <class T>
using collate_t = typename Collate<T>::Batch;

// ---- the field description of structs ----

template <class Sample, class Batch, class SampleField, class BatchField>
struct CollateField {
  using sample_type = Sample;
  using batch_type = Batch;
  using sample_field_type = SampleField;
  using batch_field_type = BatchField;
  std::string_view name;
  SampleField Sample::*sample_member;
  BatchField Batch::*batch_member;
};

// Field `name`: sample member `in` batches into batch member `out`.
template <class Sample, class Batch, class SampleField, class BatchField>
constexpr CollateField<Sample, Batch, SampleField, BatchField> collate_field(std::string_view name,
                                                                            SampleField Sample::*in,
                                                                            BatchField Batch::*out) {
  return {name, in, out};
}
// The struct is its own batch type: the member batches into itself.
template <class Sample, class Field>
constexpr CollateField<Sample, Sample, Field, Field> collate_field(std::string_view name, Field Sample::*member) {
  return {name, member, member};
}

// Specialize for a type you cannot edit: static fields() returning a tuple of
// collate_field(...). By default it forwards to T::collate_fields().
template <class T>
struct CollateFields {};
template <class T>
  requires requires { T::collate_fields(); }
struct CollateFields<T> {
  static constexpr auto fields() { return T::collate_fields(); }
};

template <class T>
concept DescribedForCollate = requires { CollateFields<T>::fields(); };

namespace detail {
// Stacks along a new dim 0 after checking that every shape is the same.
Tensor collate_tensors(std::vector<Tensor>&& tensors, const CollatePath& path);
[[noreturn]] void collate_length_mismatch(const CollatePath& path, const char* container, size_t first_size,
                                          size_t element, size_t element_size);
[[noreturn]] void collate_key_mismatch(const CollatePath& path, std::string_view key, size_t element,
                                       bool missing);
[[noreturn]] void collate_out_of_range(const CollatePath& path, size_t element);

template <class T>
Tensor collate_numbers(std::vector<T>&& values, const CollatePath& path) {
  if constexpr (std::is_same_v<T, bool>) {
    return tensor(values);
  } else if constexpr (std::is_floating_point_v<T>) {
    if constexpr (std::is_same_v<T, float>) return tensor(values, kFloat32);
    else return tensor(std::vector<double>(values.begin(), values.end()), kFloat64);
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t>) {
    return tensor(values);
  } else {
    // Every other integer type becomes int64, as Python ints do in torch.
    std::vector<int64_t> wide(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
        if (values[i] > static_cast<T>(std::numeric_limits<int64_t>::max())) collate_out_of_range(path, i);
      }
      wide[i] = static_cast<int64_t>(values[i]);
    }
    return tensor(wide, kInt64);
  }
}

// Moves member `member` out of every sample.
template <class Field, class Sample>
std::vector<Field> gather_member(std::vector<Sample>& items, Field Sample::*member) {
  std::vector<Field> out;
  out.reserve(items.size());
  for (auto& item : items) out.push_back(std::move(item.*member));
  return out;
}
}  // namespace detail

template <>
struct Collate<Tensor> {
  using Batch = Tensor;
  static Tensor apply(std::vector<Tensor>&& items, const CollatePath& path) {
    return detail::collate_tensors(std::move(items), path);
  }
};

template <class T>
  requires std::is_arithmetic_v<T>
struct Collate<T> {
  using Batch = Tensor;
  static Tensor apply(std::vector<T>&& items, const CollatePath& path) {
    return detail::collate_numbers(std::move(items), path);
  }
};

template <>
struct Collate<std::string> {
  using Batch = std::vector<std::string>;
  static Batch apply(std::vector<std::string>&& items, const CollatePath&) { return std::move(items); }
};

template <class A, class B>
struct Collate<std::pair<A, B>> {
  using Batch = std::pair<collate_t<A>, collate_t<B>>;
  static Batch apply(std::vector<std::pair<A, B>>&& items, const CollatePath& path) {
    std::vector<A> firsts;
    std::vector<B> seconds;
    firsts.reserve(items.size());
    seconds.reserve(items.size());
    for (auto& item : items) {
      firsts.push_back(std::move(item.first));
      seconds.push_back(std::move(item.second));
    }
    return Batch(Collate<A>::apply(std::move(firsts), path.at_field("first")),
                 Collate<B>::apply(std::move(seconds), path.at_field("second")));
  }
};

template <class... Ts>
struct Collate<std::tuple<Ts...>> {
  using Batch = std::tuple<collate_t<Ts>...>;
  static Batch apply(std::vector<std::tuple<Ts...>>&& items, const CollatePath& path) {
    return apply_impl(items, path, std::index_sequence_for<Ts...>{});
  }

 private:
  template <size_t I>
  static auto element(std::vector<std::tuple<Ts...>>& items, const CollatePath& path) {
    using T = std::tuple_element_t<I, std::tuple<Ts...>>;
    std::vector<T> values;
    values.reserve(items.size());
    for (auto& item : items) values.push_back(std::move(std::get<I>(item)));
    return Collate<T>::apply(std::move(values), path.at_index(I));
  }
  template <size_t... I>
  static Batch apply_impl(std::vector<std::tuple<Ts...>>& items, const CollatePath& path,
                          std::index_sequence<I...>) {
    // Braced initialization evaluates the elements in order.
    return Batch{element<I>(items, path)...};
  }
};

template <class T, size_t N>
struct Collate<std::array<T, N>> {
  using Batch = std::array<collate_t<T>, N>;
  static Batch apply(std::vector<std::array<T, N>>&& items, const CollatePath& path) {
    Batch batch;
    for (size_t j = 0; j < N; ++j) {
      std::vector<T> values;
      values.reserve(items.size());
      for (auto& item : items) values.push_back(std::move(item[j]));
      batch[j] = Collate<T>::apply(std::move(values), path.at_index(j));
    }
    return batch;
  }
};

template <class T, class Alloc>
struct Collate<std::vector<T, Alloc>> {
  using Batch = std::vector<collate_t<T>>;
  static Batch apply(std::vector<std::vector<T, Alloc>>&& items, const CollatePath& path) {
    const size_t length = items.front().size();
    for (size_t i = 1; i < items.size(); ++i)
      if (items[i].size() != length) detail::collate_length_mismatch(path, "std::vector", length, i, items[i].size());
    Batch batch;
    batch.reserve(length);
    for (size_t j = 0; j < length; ++j) {
      std::vector<T> values;
      values.reserve(items.size());
      for (auto& item : items) values.push_back(std::move(item[j]));
      batch.push_back(Collate<T>::apply(std::move(values), path.at_index(j)));
    }
    return batch;
  }
};

template <class T, class Compare, class Alloc>
struct Collate<std::map<std::string, T, Compare, Alloc>> {
  using Batch = std::map<std::string, collate_t<T>>;
  static Batch apply(std::vector<std::map<std::string, T, Compare, Alloc>>&& items, const CollatePath& path) {
    const auto& keys = items.front();
    for (size_t i = 1; i < items.size(); ++i) {
      for (const auto& [key, value] : keys)
        if (!items[i].count(key)) detail::collate_key_mismatch(path, key, i, /*missing=*/true);
      if (items[i].size() != keys.size())
        for (const auto& [key, value] : items[i])
          if (!keys.count(key)) detail::collate_key_mismatch(path, key, i, /*missing=*/false);
    }
    Batch batch;
    for (const auto& [key, unused] : keys) {
      std::vector<T> values;
      values.reserve(items.size());
      for (auto& item : items) values.push_back(std::move(item.find(key)->second));
      batch.emplace(key, Collate<T>::apply(std::move(values), path.at_key(key)));
    }
    return batch;
  }
};

template <class T>
  requires DescribedForCollate<T>
struct Collate<T> {
  using Fields = decltype(CollateFields<T>::fields());
  using Batch = typename std::tuple_element_t<0, Fields>::batch_type;

  static Batch apply(std::vector<T>&& items, const CollatePath& path) {
    static const Fields fields = CollateFields<T>::fields();
    Batch batch{};
    std::apply([&](const auto&... field) { (apply_field(field, items, batch, path), ...); }, fields);
    return batch;
  }

 private:
  template <class Field>
  static void apply_field(const Field& field, std::vector<T>& items, Batch& batch, const CollatePath& path) {
    using SampleField = typename Field::sample_field_type;
    static_assert(std::is_same_v<typename Field::sample_type, T>,
                  "collate_fields(): every collate_field must name a member of the sample struct");
    static_assert(std::is_same_v<typename Field::batch_type, Batch>,
                  "collate_fields(): every collate_field must name a member of the same batch struct");
    static_assert(std::is_same_v<typename Field::batch_field_type, collate_t<SampleField>>,
                  "collate_field(name, in, out): the batch member must have the collated type of the "
                  "sample member (Tensor for tensors and numbers, std::vector<std::string> for strings...)");
    batch.*(field.batch_member) = Collate<SampleField>::apply(detail::gather_member(items, field.sample_member),
                                                               path.at_field(field.name));
  }
};

// default_collate as a function object (the DataLoader's default).
struct DefaultCollate {
  template <class Sample>
  collate_t<Sample> operator()(std::vector<Sample> samples) const {
    EMBER_CHECK(!samples.empty(), "default_collate: the batch is empty");
    const CollatePath root;
    return Collate<Sample>::apply(std::move(samples), root);
  }
};

template <class Sample>
collate_t<Sample> default_collate(std::vector<Sample> samples) {
  return DefaultCollate{}(std::move(samples));
}

}  // namespace ember::datasets
