// CUDA kernels of the copy family: copy_ (any dtype to any dtype, any
// strides, conjugating and negating on the way), fill_, and the copies
// between the GPU and the host or another GPU (device_copy_slot).
#include "common.cuh"
#include "ember/cuda/memory.h"
#include "kernels/slots/copy_kernels.h"
#include "register.h"
#include "../caching_allocator.h"

namespace ember::cuda::kernels {
namespace {

template <class T>
__device__ __forceinline__ T negated(T v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else if constexpr (std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>) return T{-v.re, -v.im};
  else if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return convert<T>(-static_cast<float>(v));
  else return static_cast<T>(-v);
}

template <class T>
__device__ __forceinline__ T conjugated(T v) {
  if constexpr (std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>) return T{v.re, -v.im};
  else return v;
}

// Reads an element of dtype `in` and converts it to Out.
template <class Out>
__device__ __forceinline__ Out load_converted(const char* p, DType in) {
  switch (in) {
    case DType::Bool: return convert<Out>(*reinterpret_cast<const bool*>(p));
    case DType::UInt8: return convert<Out>(*reinterpret_cast<const uint8_t*>(p));
    case DType::Int8: return convert<Out>(*reinterpret_cast<const int8_t*>(p));
    case DType::Int16: return convert<Out>(*reinterpret_cast<const int16_t*>(p));
    case DType::Int32: return convert<Out>(*reinterpret_cast<const int32_t*>(p));
    case DType::Int64: return convert<Out>(*reinterpret_cast<const int64_t*>(p));
    case DType::Float16: return convert<Out>(*reinterpret_cast<const __half*>(p));
    case DType::BFloat16: return convert<Out>(*reinterpret_cast<const __nv_bfloat16*>(p));
    case DType::Float32: return convert<Out>(*reinterpret_cast<const float*>(p));
    case DType::Float64: return convert<Out>(*reinterpret_cast<const double*>(p));
    case DType::Complex64: return convert<Out>(*reinterpret_cast<const Complex<float>*>(p));
    case DType::Complex128: return convert<Out>(*reinterpret_cast<const Complex<double>*>(p));
  }
  return Out{};
}

template <class Out>
struct ConvertOp {
  DType in;
  bool conjugate, negate;
  __device__ Out operator()(RawElement e) const {
    Out o = load_converted<Out>(e.p, in);
    if (conjugate) o = conjugated(o);
    if (negate) o = negated(o);
    return o;
  }
};
template <class T>
struct SameTypeCopyOp {
  __device__ T operator()(T v) const { return v; }
};

// A kernel per (output, input) type pair would be 144 instantiations: the
// output type is a template parameter and the input's a run-time switch, so
// the file compiles 12 converting kernels, and 12 plain ones for copies
// within one dtype (the common case: contiguous(), strided views).
template <class Out>
void copy_into(TensorIterator& iter, bool conjugate, bool negate) {
  const DType in = iter.input_dtype(0);
  if (in == iter.dtype(0) && !conjugate && !negate) elementwise_launch<Out, Out>(iter, SameTypeCopyOp<Out>{});
  else elementwise_launch<Out, RawElement>(iter, ConvertOp<Out>{in, conjugate, negate});
}

void copy_kernel(TensorIterator& iter, bool conjugate, bool negate) {
  dispatch_all(iter.dtype(0), [&](auto tag) { copy_into<decltype(tag)>(iter, conjugate, negate); });
}

// The fill value converted on the host, carried by value.
template <class T>
struct FillValue {
  T v;
  __device__ T operator()() const { return v; }
};

void fill_kernel(TensorIterator& iter, const Scalar& value) {
  dispatch_all(iter.dtype(0), [&](auto tag) {
    using T = decltype(tag);
    T v;
    if constexpr (std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>) {
      using R = decltype(T::re);
      const auto c = value.to<std::complex<double>>();
      v = T{static_cast<R>(c.real()), static_cast<R>(c.imag())};
    } else if constexpr (std::is_same_v<T, __half>) {
      v = __float2half(static_cast<float>(value.to<double>()));
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      v = __float2bfloat16(static_cast<float>(value.to<double>()));
    } else if constexpr (std::is_same_v<T, bool>) {
      v = value.to<bool>();
    } else {
      v = value.to<T>();
    }
    elementwise_launch<T>(iter, FillValue<T>{v});
  });
}

// Note [CUDA copies with the host]
// As PyTorch: a copy between the GPU and pageable host memory is queued on
// the current stream of the GPU side and waited for (the host buffer may be
// reused as soon as the call returns); with non_blocking and pinned host
// memory it is only queued, and an event recorded on the stream keeps the
// pinned block from being reused before the copy is done. Copies between
// two GPUs run on the destination's current stream after the source's
// current stream has reached this point, and the source stream then waits
// for the copy, so that neither side's later work overtakes it.
void device_copy(Tensor& dst, const Tensor& src, bool non_blocking) {
  const size_t nbytes = static_cast<size_t>(src.nbytes());
  if (nbytes == 0) return;
  constexpr const char* kOp = "cuda copy";
  if (dst.device().is_cuda() && src.device().is_cuda()) {
    const int16_t d = launch_device(dst.device()), s = launch_device(src.device());
    detail::ScopedDevice on(d, kOp);
    cudaStream_t dst_stream = detail::current_cuda_stream(d);
    if (d == s) {
      EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), nbytes, cudaMemcpyDeviceToDevice, dst_stream), kOp);
      return;
    }
    cudaStream_t src_stream = detail::current_cuda_stream(s);
    cudaEvent_t src_ready = nullptr, copied = nullptr;
    {
      detail::ScopedDevice on_src(s, kOp);
      EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&src_ready, cudaEventDisableTiming), kOp);
      EMBER_CUDA_CHECK(cudaEventRecord(src_ready, src_stream), kOp);
    }
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(dst_stream, src_ready, 0), kOp);
    EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(dst.data_ptr(), d, src.data_ptr(), s, nbytes, dst_stream), kOp);
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), kOp);
    EMBER_CUDA_CHECK(cudaEventRecord(copied, dst_stream), kOp);
    {
      detail::ScopedDevice on_src(s, kOp);
      EMBER_CUDA_CHECK(cudaStreamWaitEvent(src_stream, copied, 0), kOp);
    }
    (void)cudaEventDestroy(src_ready);
    (void)cudaEventDestroy(copied);
    if (!non_blocking) EMBER_CUDA_CHECK(cudaStreamSynchronize(dst_stream), kOp);
    return;
  }
  const bool to_device = dst.device().is_cuda();
  const Tensor& gpu = to_device ? dst : src;
  const Tensor& host = to_device ? src : dst;
  const int16_t d = launch_device(gpu.device());
  detail::ScopedDevice on(d, kOp);
  cudaStream_t stream = detail::current_cuda_stream(d);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), nbytes,
                                   to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream),
                   kOp);
  detail::PinnedHostAllocator& pinned = detail::pinned_host_allocator();
  const void* host_ptr = to_device ? src.data_ptr() : dst.data_ptr();
  if (non_blocking && pinned.owns(host_ptr)) {
    pinned.record_stream(const_cast<void*>(host_ptr), Stream{Device(DeviceType::CUDA, d),
                                                            reinterpret_cast<uint64_t>(stream)});
    return;
  }
  (void)host;
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream), kOp);
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(copy_slot, copy_kernel, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(fill_slot, fill_kernel, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(device_copy_slot, device_copy, kMaskAll);

}  // namespace ember::cuda::kernels
