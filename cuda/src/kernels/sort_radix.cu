// The radix sort under the CUDA sort family (Note [CUDA sorting] in sort.cuh):
// values to ordered unsigned keys, then CUB's DeviceRadixSort::SortPairs on
// 32- or 64-bit keys with int64 positions (the only two CUB instantiations,
// which keep this file's compile time down), temporary storage from Ember's
// caching allocator, all on the current stream.
#include <cub/device/device_radix_sort.cuh>

#include "math.cuh"
#include "sort.cuh"

namespace ember::cuda::kernels {
namespace {

// The value's order as an unsigned key of 8 * sizeof(T) bits (bool: 0/1).
template <class T>
__device__ __forceinline__ uint64_t ordered_bits(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1u : 0u;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(v);
    if constexpr (std::is_signed_v<T>) u = static_cast<U>(u ^ static_cast<U>(U(1) << (8 * sizeof(T) - 1)));
    return u;
  } else {
    using U = typename bits_of<sizeof(T)>::type;
    constexpr U sign = static_cast<U>(U(1) << (8 * sizeof(T) - 1));
    const compute_t<T> c = convert<compute_t<T>>(v);
    if (c != c) return static_cast<U>(~U(0));  // every NaN: above +inf
    if (c == 0) return sign;                   // -0 and +0: the key of +0
    U u;
    if constexpr (std::is_same_v<T, __half>) u = __half_as_ushort(v);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) u = __bfloat16_as_ushort(v);
    else if constexpr (std::is_same_v<T, float>) u = __float_as_uint(v);
    else u = static_cast<U>(__double_as_longlong(v));
    return (u & sign) ? static_cast<U>(~u) : static_cast<U>(u | sign);
  }
}

template <class T>
inline constexpr int key_bits_v = 8 * static_cast<int>(sizeof(T));

// keys[i] = (row << key_bits) | key(x[i]) (the row only when row_bits > 0),
// the key's bits flipped for a descending sort; positions[i] = i.
template <class T, class K>
__global__ void make_keys_kernel(const T* x, int64_t total, int64_t n, int row_bits, bool descending, K* keys,
                                 int64_t* positions) {
  constexpr int kb = key_bits_v<T>;
  constexpr uint64_t mask = kb >= 64 ? ~uint64_t{0} : (uint64_t{1} << (kb % 64)) - 1;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    uint64_t k = ordered_bits(x[i]);
    if (descending) k = ~k & mask;
    if (row_bits > 0) k |= static_cast<uint64_t>(i / n) << (kb % 64);
    keys[i] = static_cast<K>(k);
    positions[i] = i;
  }
}

// Second pass of the two-pass sort: each sorted position's row as the key.
template <class K>
__global__ void row_keys_kernel(const int64_t* positions, int64_t total, int64_t n, K* keys) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    keys[i] = static_cast<K>(positions[i] / n);
}

int bit_width(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// A key buffer pair and a position buffer pair, sorted by CUB on bits
// [0, end_bit) of the keys; returns the tensor holding the sorted positions.
template <class K>
class RadixPairs {
 public:
  RadixPairs(int64_t total, Device device)
      : total_(total),
        keys_{buffer(total * int64_t{sizeof(K)}, device), buffer(total * int64_t{sizeof(K)}, device)},
        positions_{empty({total}, TensorOptions(kInt64).device(device)), empty({total}, TensorOptions(kInt64).device(device))},
        device_(device) {}
  K* keys() { return static_cast<K*>(keys_[0].data_ptr()); }
  int64_t* positions() { return static_cast<int64_t*>(positions_[0].data_ptr()); }

  // Sorts (keys(), positions()) stably; afterwards keys() and positions() are the sorted ones.
  void sort(int end_bit, cudaStream_t stream, const char* op) {
    cub::DoubleBuffer<K> keys(static_cast<K*>(keys_[0].data_ptr()), static_cast<K*>(keys_[1].data_ptr()));
    cub::DoubleBuffer<int64_t> values(static_cast<int64_t*>(positions_[0].data_ptr()),
                                      static_cast<int64_t*>(positions_[1].data_ptr()));
    size_t temp_bytes = 0;
    EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, values, total_, 0, end_bit, stream), op);
    Tensor temp = buffer(static_cast<int64_t>(temp_bytes > 0 ? temp_bytes : 1), device_);
    EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data_ptr(), temp_bytes, keys, values, total_, 0, end_bit, stream),
                     op);
    if (keys.selector != 0) std::swap(keys_[0], keys_[1]);
    if (values.selector != 0) std::swap(positions_[0], positions_[1]);
  }
  Tensor sorted_positions() const { return positions_[0]; }

 private:
  static Tensor buffer(int64_t bytes, Device device) { return empty({bytes}, TensorOptions(kUInt8).device(device)); }
  int64_t total_;
  Tensor keys_[2];
  Tensor positions_[2];
  Device device_;
};

template <class T, class K>
Tensor sort_with_keys(const T* x, int64_t total, int64_t n, int row_bits, bool descending, Device device,
                      cudaStream_t stream, const char* op) {
  RadixPairs<K> pairs(total, device);
  make_keys_kernel<T, K><<<sort_grid_for(total), kSortThreads, 0, stream>>>(x, total, n, row_bits, descending,
                                                                             pairs.keys(), pairs.positions());
  check_launch(op);
  pairs.sort(key_bits_v<T> + row_bits, stream, op);
  return pairs.sorted_positions();
}

}  // namespace

Tensor sorted_positions(const Tensor& x, int64_t rows, int64_t n, bool descending, const char* op) {
  const int64_t total = rows * n;
  EMBER_CHECK(x.is_contiguous() && x.numel() == total, op, ": sorted_positions takes a contiguous [", rows, ", ", n,
              "] input");
  const Device device = x.device();
  const int16_t index = launch_device(device);
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  if (total == 0) return empty({0}, TensorOptions(kInt64).device(device));
  const int row_bits = rows > 1 ? bit_width(static_cast<uint64_t>(rows - 1)) : 0;
  Tensor result;
  dispatch_sortable(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* data = static_cast<const T*>(x.data_ptr());
    constexpr int kb = key_bits_v<T>;
    if (kb + row_bits <= 32) {
      result = sort_with_keys<T, uint32_t>(data, total, n, row_bits, descending, device, stream, op);
    } else if (kb + row_bits <= 64) {
      result = sort_with_keys<T, uint64_t>(data, total, n, row_bits, descending, device, stream, op);
    } else {
      // A 64-bit key leaves no room for the row: sort all by value, then
      // stably by row (the value order stays within each row).
      const Tensor by_value = sort_with_keys<T, uint64_t>(data, total, n, 0, descending, device, stream, op);
      auto by_row = [&](auto key_tag) {
        using K = decltype(key_tag);
        RadixPairs<K> pairs(total, device);
        EMBER_CUDA_CHECK(cudaMemcpyAsync(pairs.positions(), by_value.data_ptr(), total * sizeof(int64_t),
                                         cudaMemcpyDeviceToDevice, stream),
                         op);
        row_keys_kernel<K><<<sort_grid_for(total), kSortThreads, 0, stream>>>(pairs.positions(), total, n, pairs.keys());
        check_launch(op);
        pairs.sort(row_bits, stream, op);
        result = pairs.sorted_positions();
      };
      if (row_bits <= 32) by_row(uint32_t{});
      else by_row(uint64_t{});
    }
  });
  return result;
}

}  // namespace ember::cuda::kernels
