// CPU kernels of gather and scatter along one dim. The iterator walks every
// position but `dim` (in parallel: positions never write the same element);
// each position walks its `n` index entries. Which of the two loops is
// innermost follows the memory layout (see ScatterGatherDims::dim_is_inner).
#include <algorithm>
#include <cmath>

#include "kernels/cpu/index_helpers.h"
#include "kernels/cpu/loops.h"
#include "kernels/slots/indexing_kernels.h"

namespace ember {
namespace {

int64_t positions_grain(const ScatterGatherDims& d) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(d.n, 1));
}

// Walk dim innermost when it is the fastest dim, or when the iterator's inner
// run of positions is too short to be worth a loop of its own.
bool walk_dim_inner(const ScatterGatherDims& d, int64_t run) { return d.dim_is_inner || run < 16; }

// Operands (out, self, index): out[j] = self[index[j]] along dim.
void gather_kernel(TensorIterator& iter, const ScatterGatherDims& dims) {
  const ScatterGatherDims d = dims;
  dispatch_element_size(element_size(iter.dtype(0)), d.bound.op, [&](auto tag) {
    using T = decltype(tag);
    iter.for_each(
        [&d](char** data, const int64_t* strides, int64_t run) {
          if (walk_dim_inner(d, run)) {
            for (int64_t p = 0; p < run; ++p) {
              T* __restrict out = reinterpret_cast<T*>(data[0] + p * strides[0]);
              const T* __restrict self = reinterpret_cast<const T*>(data[1] + p * strides[1]);
              const int64_t* __restrict index = reinterpret_cast<const int64_t*>(data[2] + p * strides[2]);
              if (d.src_stride == 1 && d.index_stride == 1) {
                // Contiguous along dim (gather on the last dim): check, then a tight loop.
                check_indices(index, d.n, d.bound);
                const int64_t ss = d.self_stride;
                if (ss == 1)
                  for (int64_t j = 0; j < d.n; ++j) out[j] = self[index[j]];
                else
                  for (int64_t j = 0; j < d.n; ++j) out[j] = self[index[j] * ss];
              } else {
                for (int64_t j = 0; j < d.n; ++j)
                  out[j * d.src_stride] = self[checked_index(index[j * d.index_stride], d.bound) * d.self_stride];
              }
            }
            return;
          }
          const int64_t so = strides[0], ss = strides[1], si = strides[2];
          for (int64_t j = 0; j < d.n; ++j) {
            char* out = data[0] + j * d.src_stride * static_cast<int64_t>(sizeof(T));
            const char* self = data[1];
            const char* index = data[2] + j * d.index_stride * static_cast<int64_t>(sizeof(int64_t));
            for (int64_t p = 0; p < run; ++p) {
              const int64_t k = checked_index(*reinterpret_cast<const int64_t*>(index + p * si), d.bound);
              *reinterpret_cast<T*>(out + p * so) =
                  reinterpret_cast<const T*>(self + p * ss)[k * d.self_stride];
            }
          }
        },
        positions_grain(d));
  });
}

// Runs dst = f(dst, value) for every (position, entry); value from src
// (operands self, src, index) or a constant (operands self, index).
template <class T, bool kHasSrc, class F>
void scatter_loop(TensorIterator& iter, const ScatterGatherDims& d, T constant, const F& f) {
  constexpr int kIndexArg = kHasSrc ? 2 : 1;
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t run) {
        auto one = [&](int64_t p, int64_t j) {
          const int64_t raw = reinterpret_cast<const int64_t*>(data[kIndexArg] + p * strides[kIndexArg])[j * d.index_stride];
          T& dst = reinterpret_cast<T*>(data[0] + p * strides[0])[checked_index(raw, d.bound) * d.self_stride];
          if constexpr (kHasSrc)
            dst = f(dst, reinterpret_cast<const T*>(data[1] + p * strides[1])[j * d.src_stride]);
          else
            dst = f(dst, constant);
        };
        if (walk_dim_inner(d, run)) {
          for (int64_t p = 0; p < run; ++p)
            for (int64_t j = 0; j < d.n; ++j) one(p, j);
        } else {
          for (int64_t j = 0; j < d.n; ++j)
            for (int64_t p = 0; p < run; ++p) one(p, j);
        }
      },
      positions_grain(d));
}

template <class T>
T reduce_values(ScatterOp op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case ScatterOp::Add: case ScatterOp::Amax: return a || b;
      case ScatterOp::Multiply: case ScatterOp::Amin: return a && b;
      case ScatterOp::Assign: return b;
    }
    return b;
  } else {
    using C = compute_type_t<T>;
    const C x = static_cast<C>(a), y = static_cast<C>(b);
    switch (op) {
      case ScatterOp::Add: return static_cast<T>(x + y);
      case ScatterOp::Multiply: return static_cast<T>(x * y);
      case ScatterOp::Amax:
      case ScatterOp::Amin:
        if constexpr (!is_complex_v<C>) {
          // NaN wins, as torch.scatter_reduce's amax/amin.
          if constexpr (std::is_floating_point_v<C>)
            if (std::isnan(x) || std::isnan(y)) return static_cast<T>(std::isnan(x) ? x : y);
          return static_cast<T>(op == ScatterOp::Amax ? (x < y ? y : x) : (y < x ? y : x));
        }
        return b;
      case ScatterOp::Assign: return b;
    }
    return b;
  }
}

// One instantiation per (dtype, op): the op is a template argument so the
// inner loop has no switch.
template <class T, bool kHasSrc>
void scatter_reduce_typed(TensorIterator& iter, const ScatterGatherDims& d, ScatterOp op, T constant) {
  switch (op) {
#define EMBER_SCATTER_CASE(E)                                                                 \
  case ScatterOp::E:                                                                          \
    scatter_loop<T, kHasSrc>(iter, d, constant,                                               \
                             [](T a, T b) { return reduce_values<T>(ScatterOp::E, a, b); });  \
    return;
    EMBER_SCATTER_CASE(Assign)
    EMBER_SCATTER_CASE(Add)
    EMBER_SCATTER_CASE(Multiply)
    EMBER_SCATTER_CASE(Amax)
    EMBER_SCATTER_CASE(Amin)
#undef EMBER_SCATTER_CASE
  }
}

void scatter_kernel(TensorIterator& iter, const ScatterGatherDims& d, ScatterOp op) {
  if (op == ScatterOp::Assign) {
    dispatch_element_size(element_size(iter.dtype(0)), d.bound.op, [&](auto tag) {
      using T = decltype(tag);
      scatter_loop<T, true>(iter, d, T{}, [](T, T b) { return b; });
    });
    return;
  }
  dispatch<kMaskAll>(iter.dtype(0), d.bound.op, [&](auto tag) {
    using T = decltype(tag);
    scatter_reduce_typed<T, true>(iter, d, op, T{});
  });
}

void scatter_scalar_kernel(TensorIterator& iter, const ScatterGatherDims& d, ScatterOp op,
                           const Scalar& value) {
  dispatch<kMaskAll>(iter.dtype(0), d.bound.op, [&](auto tag) {
    using T = decltype(tag);
    scatter_reduce_typed<T, false>(iter, d, op, value.to<T>());
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(gather_slot, CPU, gather_kernel, kMaskAll);  // every element size
EMBER_REGISTER_KERNEL(scatter_slot, CPU, scatter_kernel);
EMBER_REGISTER_KERNEL(scatter_scalar_slot, CPU, scatter_scalar_kernel);
// The dtypes each op computes (reduce_values): assign, add and multiply every
// dtype (bool adds as or, multiplies as and); amax and amin compare, so not
// complex (the op refuses complex for them).
constexpr uint32_t kScatterOpDTypes[] = {kMaskAll, kMaskAll, kMaskAll, kMaskReal | kMaskBool, kMaskReal | kMaskBool};
static_assert(std::size(kScatterOpDTypes) == std::size(kScatterOpNames));
static const bool scatter_op_dtypes_registered = scatter_slot.set_op_dtypes(DeviceType::CPU, kScatterOpDTypes);
static const bool scatter_scalar_op_dtypes_registered =
    scatter_scalar_slot.set_op_dtypes(DeviceType::CPU, kScatterOpDTypes);

}  // namespace ember
