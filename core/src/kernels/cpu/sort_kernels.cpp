// CPU kernels of the sort family. Each slice along the dim is copied into a
// buffer of (value, index) entries and sorted or partitioned there with
// comparators that order NaN above every number (PyTorch's order); slices run
// in parallel, each one serially, so results don't depend on the thread count.
#include <algorithm>
#include <utility>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/factories.h"
#include "kernels/cpu/dim_rows.h"
#include "kernels/cpu/math.h"
#include "kernels/slots/sort_kernels.h"

namespace ember {
namespace {

constexpr uint32_t kSortable = kMaskReal | kMaskBool;

template <class C>
using Entry = std::pair<C, int64_t>;

// Value orders, NaN largest; equal values compare equal (stable sorts keep input order).
struct ValueLess {
  template <class C>
  bool operator()(const Entry<C>& a, const Entry<C>& b) const {
    return (!math::isnan(a.first) && math::isnan(b.first)) || a.first < b.first;
  }
};
struct ValueGreater {
  template <class C>
  bool operator()(const Entry<C>& a, const Entry<C>& b) const {
    return (math::isnan(a.first) && !math::isnan(b.first)) || a.first > b.first;
  }
};
// Total orders: ties (NaNs included) broken by the lower index, so selections
// (nth_element, partial_sort) have one answer.
struct TotalLess {
  template <class C>
  bool operator()(const Entry<C>& a, const Entry<C>& b) const {
    const bool an = math::isnan(a.first), bn = math::isnan(b.first);
    if (an || bn) return an && bn ? a.second < b.second : bn;
    return a.first < b.first || (a.first == b.first && a.second < b.second);
  }
};
struct TotalGreater {
  template <class C>
  bool operator()(const Entry<C>& a, const Entry<C>& b) const {
    const bool an = math::isnan(a.first), bn = math::isnan(b.first);
    if (an || bn) return an && bn ? a.second < b.second : an;
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }
};

// Runs f(buffer, row) for each row of `in` along dim, with the row loaded into
// `buffer` as (value, index) entries.
template <class T, class F>
void for_each_row(const Tensor& in, int64_t dim, const F& f) {
  using C = compute_type_t<T>;
  const DimRows rows(in, dim);
  const T* src = in.data_ptr<T>();
  const int64_t n = rows.size();
  parallel_for(0, rows.rows(), std::max<int64_t>(1, kGrainSize / 8 / std::max<int64_t>(n, 1)),
               [&](int64_t begin, int64_t end) {
                 std::vector<Entry<C>> buf(static_cast<size_t>(n));
                 for (int64_t r = begin; r < end; ++r) {
                   const T* p = src + rows.offset(r);
                   for (int64_t i = 0; i < n; ++i) buf[i] = {static_cast<C>(p[i * rows.stride()]), i};
                   f(buf, r);
                 }
               });
}

// Writes entries [0, count) of buf into row r of values/indices along dim.
template <class T, class C>
void store_row(const std::vector<Entry<C>>& buf, int64_t count, Tensor& values, Tensor& indices,
               const DimRows& vrows, const DimRows& irows, int64_t r) {
  T* v = values.data_ptr<T>() + vrows.offset(r);
  int64_t* ix = indices.data_ptr<int64_t>() + irows.offset(r);
  for (int64_t i = 0; i < count; ++i) {
    v[i * vrows.stride()] = static_cast<T>(buf[i].first);
    ix[i * irows.stride()] = buf[i].second;
  }
}

void sort_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool descending) {
  dispatch<kSortable>(in.dtype(), "sort", [&](auto t) {
    using T = decltype(t);
    const DimRows vrows(values, dim), irows(indices, dim);
    for_each_row<T>(in, dim, [&](auto& buf, int64_t r) {
      if (descending) std::stable_sort(buf.begin(), buf.end(), ValueGreater{});
      else std::stable_sort(buf.begin(), buf.end(), ValueLess{});
      store_row<T>(buf, static_cast<int64_t>(buf.size()), values, indices, vrows, irows, r);
    });
  });
}

template <class Order, class Buf>
void select_top(Buf& buf, int64_t k, bool sorted, Order order) {
  const int64_t n = static_cast<int64_t>(buf.size());
  if (k == 0) return;
  if (sorted && k * 8 < n) {
    std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), order);
    return;
  }
  if (k < n) std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), order);
  if (sorted) std::sort(buf.begin(), buf.begin() + k, order);
}

void topk_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, int64_t k, bool largest,
                 bool sorted) {
  dispatch<kSortable>(in.dtype(), "topk", [&](auto t) {
    using T = decltype(t);
    const DimRows vrows(values, dim), irows(indices, dim);
    for_each_row<T>(in, dim, [&](auto& buf, int64_t r) {
      if (largest) select_top(buf, k, sorted, TotalGreater{});
      else select_top(buf, k, sorted, TotalLess{});
      store_row<T>(buf, k, values, indices, vrows, irows, r);
    });
  });
}

void select_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, SelectOp op, int64_t k) {
  dispatch<kSortable>(in.dtype(), kSelectOpNames[static_cast<int>(op)], [&](auto t) {
    using T = decltype(t);
    const DimRows vrows(values, dim), irows(indices, dim);
    for_each_row<T>(in, dim, [&](auto& buf, int64_t r) {
      int64_t kk = k;
      if (op != SelectOp::Kth) {
        const auto first_nan = std::find_if(buf.begin(), buf.end(), [](const auto& e) { return math::isnan(e.first); });
        const int64_t nans = std::count_if(buf.begin(), buf.end(), [](const auto& e) { return math::isnan(e.first); });
        const int64_t valid = static_cast<int64_t>(buf.size()) - (op == SelectOp::NanMedian ? nans : 0);
        if ((op == SelectOp::Median && nans > 0) || valid == 0) {
          std::iter_swap(buf.begin(), first_nan);  // the first NaN is the answer
          store_row<T>(buf, 1, values, indices, vrows, irows, r);
          return;
        }
        kk = (valid - 1) / 2;
      }
      std::nth_element(buf.begin(), buf.begin() + kk, buf.end(), TotalLess{});
      std::iter_swap(buf.begin(), buf.begin() + kk);
      store_row<T>(buf, 1, values, indices, vrows, irows, r);
    });
  });
}

void mode_kernel(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim) {
  dispatch<kSortable>(in.dtype(), "mode", [&](auto t) {
    using T = decltype(t);
    const DimRows vrows(values, dim), irows(indices, dim);
    for_each_row<T>(in, dim, [&](auto& buf, int64_t r) {
      std::stable_sort(buf.begin(), buf.end(), ValueLess{});
      // Longest run of equal values; on equal lengths the first (smallest) run
      // wins, and its last entry gives the index (PyTorch's choice).
      size_t best = 0, best_len = 0, run = 0;
      for (size_t i = 0; i < buf.size(); ++i) {
        ++run;
        if (i + 1 == buf.size() || !(buf[i].first == buf[i + 1].first)) {
          if (run > best_len) {
            best = i;
            best_len = run;
          }
          run = 0;
        }
      }
      std::swap(buf[0], buf[best]);
      store_row<T>(buf, 1, values, indices, vrows, irows, r);
    });
  });
}

template <class T>
std::tuple<Tensor, Tensor, Tensor> make_unique_outputs(const Tensor& in, const std::vector<compute_type_t<T>>& values,
                                                       std::vector<int64_t>* inverse, std::vector<int64_t>* counts) {
  const int64_t u = static_cast<int64_t>(values.size());
  Tensor v = empty({u}, in.options());
  T* vp = v.data_ptr<T>();
  for (int64_t j = 0; j < u; ++j) vp[j] = static_cast<T>(values[j]);
  const TensorOptions long_opts = TensorOptions(kInt64).device(in.device());
  Tensor inv = empty({inverse ? in.numel() : 0}, long_opts);
  if (inverse) std::copy(inverse->begin(), inverse->end(), inv.data_ptr<int64_t>());
  Tensor cnt = empty({counts ? u : 0}, long_opts);
  if (counts) std::copy(counts->begin(), counts->end(), cnt.data_ptr<int64_t>());
  return {v, inv, cnt};
}

// Sorted unique: sort a copy of the values (NaNs last, each NaN distinct as
// NaN != NaN), then find each element's slot by binary search, in parallel.
template <class T>
std::tuple<Tensor, Tensor, Tensor> unique_sorted(const Tensor& in, bool return_inverse, bool return_counts) {
  using C = compute_type_t<T>;
  const int64_t n = in.numel();
  const T* src = in.data_ptr<T>();
  std::vector<C> sorted(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) sorted[i] = static_cast<C>(src[i]);
  const auto nan_begin = std::partition(sorted.begin(), sorted.end(), [](C x) { return !math::isnan(x); });
  std::sort(sorted.begin(), nan_begin);
  std::vector<C> values;
  std::vector<int64_t> counts;
  for (auto it = sorted.begin(); it != nan_begin; ++it) {
    if (values.empty() || !(values.back() == *it)) {
      values.push_back(*it);
      counts.push_back(0);
    }
    ++counts.back();
  }
  const int64_t finite = static_cast<int64_t>(values.size());
  for (auto it = nan_begin; it != sorted.end(); ++it) {
    values.push_back(*it);
    counts.push_back(1);
  }
  std::vector<int64_t> inverse;
  if (return_inverse) {
    inverse.resize(static_cast<size_t>(n));
    parallel_for(0, n, kGrainSize / 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const C x = static_cast<C>(src[i]);
        if (!math::isnan(x)) inverse[i] = std::lower_bound(values.begin(), values.begin() + finite, x) - values.begin();
      }
    });
    int64_t next_nan = finite;  // NaNs take their slots in input order
    if (finite < static_cast<int64_t>(values.size()))
      for (int64_t i = 0; i < n; ++i)
        if (math::isnan(static_cast<C>(src[i]))) inverse[i] = next_nan++;
  }
  return make_unique_outputs<T>(in, values, return_inverse ? &inverse : nullptr, return_counts ? &counts : nullptr);
}

// Runs of equal consecutive values, in input order.
template <class T>
std::tuple<Tensor, Tensor, Tensor> unique_runs(const Tensor& in, bool return_inverse, bool return_counts) {
  using C = compute_type_t<T>;
  const int64_t n = in.numel();
  const T* src = in.data_ptr<T>();
  std::vector<C> values;
  std::vector<int64_t> counts, inverse(return_inverse ? static_cast<size_t>(n) : 0);
  for (int64_t i = 0; i < n; ++i) {
    const C x = static_cast<C>(src[i]);
    if (values.empty() || !(values.back() == x)) {
      values.push_back(x);
      counts.push_back(0);
    }
    ++counts.back();
    if (return_inverse) inverse[i] = static_cast<int64_t>(values.size()) - 1;
  }
  return make_unique_outputs<T>(in, values, return_inverse ? &inverse : nullptr, return_counts ? &counts : nullptr);
}

std::tuple<Tensor, Tensor, Tensor> unique_kernel(const Tensor& in, bool consecutive, bool return_inverse,
                                                 bool return_counts) {
  return dispatch<kSortable>(in.dtype(), consecutive ? "unique_consecutive" : "unique", [&](auto t) {
    using T = decltype(t);
    return consecutive ? unique_runs<T>(in, return_inverse, return_counts)
                       : unique_sorted<T>(in, return_inverse, return_counts);
  });
}

}  // namespace

// Every kernel orders values: every real dtype and bool (kSortable), which
// missing_kernels holds other backends to.
EMBER_REGISTER_KERNEL_FOR_DTYPES(sort_slot, CPU, sort_kernel, kSortable);
EMBER_REGISTER_KERNEL_FOR_DTYPES(topk_slot, CPU, topk_kernel, kSortable);
EMBER_REGISTER_KERNEL_FOR_DTYPES(select_slot, CPU, select_kernel, kSortable);
EMBER_REGISTER_KERNEL_FOR_DTYPES(mode_slot, CPU, mode_kernel, kSortable);
EMBER_REGISTER_KERNEL_FOR_DTYPES(unique_slot, CPU, unique_kernel, kSortable);
constexpr uint32_t kSelectOpDTypes[] = {kSortable, kSortable, kSortable};  // kthvalue, median, nanmedian
static_assert(std::size(kSelectOpDTypes) == std::size(kSelectOpNames));
static const bool select_op_dtypes_registered = select_slot.set_op_dtypes(DeviceType::CPU, kSelectOpDTypes);

}  // namespace ember
