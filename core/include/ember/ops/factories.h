#pragma once
// Factory functions: empty, zeros, ones, full, arange, linspace, logspace, eye,
// *_like, from_blob and tensors from C++ values.
#include <functional>
#include <initializer_list>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

Tensor empty(IntArrayRef sizes, const TensorOptions& options = {});
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
// dtype defaults to the scalar's: bool, int64, default float or complex.
Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options = {});
Tensor scalar_tensor(const Scalar& value, const TensorOptions& options = {});

// *_like: same shape (and layout, unless options give a memory format) as `t`;
// dtype and device from options when set, else from t.
Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
Tensor zeros_like(const Tensor& t, const TensorOptions& options = {});
Tensor ones_like(const Tensor& t, const TensorOptions& options = {});
Tensor full_like(const Tensor& t, const Scalar& value, const TensorOptions& options = {});

// Integer arguments give int64, any floating argument the default dtype.
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options = {});
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});

// Wraps memory the caller owns; no copy. The deleter (if any) runs when the
// last tensor viewing the memory goes away.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options = {});

// Tensors from C++ values (copies). tensor({1.f, 2.f}) is float32,
// tensor({1, 2}) int64 (as torch.tensor), tensor({true}) bool.
template <class T>
Tensor tensor(const std::vector<T>& values, const TensorOptions& options = {});
template <class T>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  return tensor(std::vector<T>(values), options);
}
// Nested lists: tensor({{1, 2}, {3, 4}}).
template <class T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> rows, const TensorOptions& options = {});

namespace detail {
Tensor tensor_from_data(const void* data, DType data_dtype, IntArrayRef sizes,
                        const TensorOptions& options);
template <class T>
DType natural_dtype() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, long> || std::is_same_v<T, long long>)
    return DType::Int64;
  else if constexpr (std::is_same_v<T, double>) return default_dtype();
  else return dtype_of_v<T>;
}
}  // namespace detail

template <class T>
Tensor tensor(const std::vector<T>& values, const TensorOptions& options) {
  const int64_t n = static_cast<int64_t>(values.size());
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(values.begin(), values.end());
    return detail::tensor_from_data(bytes.data(), DType::Bool, {n}, options.merged_with(DType::Bool));
  } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, long> ||
                       std::is_same_v<T, long long>) {
    std::vector<int64_t> wide(values.begin(), values.end());
    return detail::tensor_from_data(wide.data(), DType::Int64, {n}, options.merged_with(DType::Int64));
  } else {
    return detail::tensor_from_data(values.data(), dtype_of_v<T>, {n},
                                    options.merged_with(detail::natural_dtype<T>()));
  }
}

template <class T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> rows, const TensorOptions& options) {
  std::vector<T> flat;
  int64_t cols = rows.size() ? static_cast<int64_t>(rows.begin()->size()) : 0;
  for (const auto& r : rows) {
    EMBER_CHECK(static_cast<int64_t>(r.size()) == cols,
                "tensor: nested lists must have equal lengths, got ", cols, " and ", r.size());
    flat.insert(flat.end(), r.begin(), r.end());
  }
  return tensor(flat, options).view({static_cast<int64_t>(rows.size()), cols});
}

}  // namespace ember
