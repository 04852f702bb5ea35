// fft_c2c_slot, fft_r2c_slot and fft_c2r_slot on CUDA, through cuFFT.
//
// Note [cuFFT transforms]
// Every transform hands cuFFT contiguous buffers: the input permuted so that
// the transformed dims come last (in the order given; the last of them, the
// halved one of r2c/c2r, innermost) and the others, the batch, first, copied
// only when that permutation is not already contiguous; the result is made in
// that layout and returned as the inverse permutation of it (a view, as
// PyTorch's cuFFT path restrides). A cuFFT plan takes at most 3 dims, so more
// dims run as successive plans of up to 3 (the DFT is separable). cuFFT
// scales nothing: the scale (1, 1/sqrt(N), 1/N) is one more kernel over the
// result. float32/float64 and complex64/complex128 as the CPU's kernels (the
// op promotes float16/bfloat16 to float32 before the slot, so neither side
// sees them).
//   - c2c: plans C2C/Z2Z forward or inverse.
//   - r2c: one R2C/D2Z plan over the last (up to 3) dims writes the half
//     spectrum; without `onesided` it writes into rows of the full length and
//     a kernel fills the other half by conjugate symmetry; leading dims beyond
//     3 run as forward c2c.
//   - c2r: the dims before the last run as inverse c2c (cuFFT's multi-dim C2R
//     would do the same arithmetic, but the CPU's c2r ignores the imaginary
//     parts of bins 0 and n/2 of the last dim after those, which only a
//     separate 1-D C2R lets us do); then, on a private copy (cuFFT's C2R
//     overwrites its input), those imaginary parts are zeroed and one batched
//     1-D C2R/Z2D plan makes the real output.
// Signal dims of size 1 are an identity and are left out of the plans.
//
// Note [cuFFT plan cache]
// As PyTorch's (aten/src/ATen/native/cuda/CuFFTPlanCache.h): per device an LRU
// of plans keyed by cufftMakePlanMany64's arguments (FFTPlanKey,
// fft_plan_cache.h), 4096 by default, sized and cleared through
// <ember/cuda/fft.h>. Plans are made with cufftSetAutoAllocation(0): at each
// execution the work area comes from Ember's caching allocator on the current
// stream (a uint8 tensor freed after the launch: stream-ordered reuse) and the
// plan is bound to the current stream with cufftSetStream, both under the
// plan's mutex, since one cached plan may serve several threads.
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "../check.h"
#include "../fft_plan_cache.h"
#include "../stream_internal.h"
#include "ember/cuda/fft.h"
#include "ember/cuda/runtime.h"
#include "ember/ops/factories.h"
#include "fft_helpers.h"
#include "kernels/slots/fft_kernels.h"
#include "register.h"

namespace ember::cuda {
namespace detail {
namespace {

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cuFFT error";
  }
}

void check_cufft(cufftResult r, const char* op, const char* call) {
  if (r == CUFFT_SUCCESS) [[likely]] return;
  (void)cudaGetLastError();  // a failed launch inside cuFFT: do not report it again later
  throw CUDAError(::ember::detail::concat(op, ": ", call, " failed: ", cufft_result_name(r), " (cuFFT error ",
                                          static_cast<int>(r), ")"),
                  static_cast<int>(r));
}
#define EMBER_CUFFT_CHECK(call, op) ::ember::cuda::detail::check_cufft((call), (op), #call)

}  // namespace

// A cuFFT plan made for one FFTPlanKey, without its own work area.
struct CuFFTPlan {
  cufftHandle handle = 0;
  size_t work_size = 0;
  std::mutex mutex;  // held while a thread binds stream and work area and launches

  CuFFTPlan(const FFTPlanKey& key, const char* op) {
    EMBER_CUFFT_CHECK(cufftCreate(&handle), op);
    try {
      EMBER_CUFFT_CHECK(cufftSetAutoAllocation(handle, 0), op);
      long long n[3], inembed[3], onembed[3];
      for (int d = 0; d < 3; ++d) n[d] = key.n[d], inembed[d] = key.inembed[d], onembed[d] = key.onembed[d];
      EMBER_CUFFT_CHECK(cufftMakePlanMany64(handle, key.rank, n, inembed, 1, key.idist, onembed, 1, key.odist,
                                            static_cast<cufftType>(key.type), key.batch, &work_size),
                        op);
    } catch (...) {
      cufftDestroy(handle);
      throw;
    }
  }
  ~CuFFTPlan() { cufftDestroy(handle); }
  CuFFTPlan(const CuFFTPlan&) = delete;
  CuFFTPlan& operator=(const CuFFTPlan&) = delete;
};

namespace {

using PlanCache = LruCache<FFTPlanKey, CuFFTPlan, FFTPlanKeyHash>;

// One cache per device, made on first use and kept for the process (plans
// hold cuFFT handles; destroying them at exit, after the driver may be gone,
// is what PyTorch avoids too).
PlanCache& plan_cache(int16_t index) {
  static std::mutex mutex;
  static PlanCache* caches[kMaxDevices] = {};
  std::lock_guard<std::mutex> lock(mutex);
  if (!caches[index]) caches[index] = new PlanCache(kDefaultFFTPlanCacheMaxSize);
  return *caches[index];
}

}  // namespace
}  // namespace detail

// ---- the public plan cache API ----

int64_t fft_plan_cache_size(int16_t device) {
  return detail::plan_cache(detail::resolve_index(device, "fft_plan_cache_size")).size();
}
int64_t fft_plan_cache_max_size(int16_t device) {
  return detail::plan_cache(detail::resolve_index(device, "fft_plan_cache_max_size")).max_size();
}
void set_fft_plan_cache_max_size(int64_t max_size, int16_t device) {
  EMBER_CHECK(max_size >= 0, "set_fft_plan_cache_max_size: max_size must be >= 0, got ", max_size);
  detail::plan_cache(detail::resolve_index(device, "set_fft_plan_cache_max_size")).set_max_size(max_size);
}
void clear_fft_plan_cache(int16_t device) {
  detail::plan_cache(detail::resolve_index(device, "clear_fft_plan_cache")).clear();
}

namespace kernels {
namespace {

using fft::detail::Scale;
using detail::FFTPlanKey;

enum class Kind { C2C, R2C, C2R };

int cufft_type(Kind kind, bool is_double) {
  switch (kind) {
    case Kind::C2C: return is_double ? CUFFT_Z2Z : CUFFT_C2C;
    case Kind::R2C: return is_double ? CUFFT_D2Z : CUFFT_R2C;
    case Kind::C2R: return is_double ? CUFFT_Z2D : CUFFT_C2R;
  }
  return 0;
}

// Runs the plan for `key` from in to out on the current stream of device `index`.
void execute(const FFTPlanKey& key, int16_t index, const void* in, void* out, bool forward, const char* op) {
  detail::ScopedDevice on(index, op);
  std::shared_ptr<detail::CuFFTPlan> plan = detail::plan_cache(index).get(
      key, [op](const FFTPlanKey& k) { return std::make_shared<detail::CuFFTPlan>(k, op); });
  cudaStream_t stream = detail::current_cuda_stream(index);
  // The work area: Ember's allocator, on this stream, released after the launch.
  Tensor work;
  if (plan->work_size > 0)
    work = empty({static_cast<int64_t>(plan->work_size)},
                 TensorOptions(kUInt8).device(Device(DeviceType::CUDA, index)));
  std::lock_guard<std::mutex> lock(plan->mutex);
  EMBER_CUFFT_CHECK(cufftSetStream(plan->handle, stream), op);
  if (plan->work_size > 0) EMBER_CUFFT_CHECK(cufftSetWorkArea(plan->handle, work.data_ptr()), op);
  // cuFFT's exec functions take non-const input pointers; out-of-place C2C and
  // R2C leave the input as it is, C2R is only ever given a private copy.
  void* src = const_cast<void*>(in);
  const int dir = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  switch (key.type) {
    case CUFFT_C2C:
      EMBER_CUFFT_CHECK(
          cufftExecC2C(plan->handle, static_cast<cufftComplex*>(src), static_cast<cufftComplex*>(out), dir), op);
      break;
    case CUFFT_Z2Z:
      EMBER_CUFFT_CHECK(cufftExecZ2Z(plan->handle, static_cast<cufftDoubleComplex*>(src),
                                     static_cast<cufftDoubleComplex*>(out), dir),
                        op);
      break;
    case CUFFT_R2C:
      EMBER_CUFFT_CHECK(cufftExecR2C(plan->handle, static_cast<cufftReal*>(src), static_cast<cufftComplex*>(out)), op);
      break;
    case CUFFT_D2Z:
      EMBER_CUFFT_CHECK(cufftExecD2Z(plan->handle, static_cast<cufftDoubleReal*>(src),
                                     static_cast<cufftDoubleComplex*>(out)),
                        op);
      break;
    case CUFFT_C2R:
      EMBER_CUFFT_CHECK(cufftExecC2R(plan->handle, static_cast<cufftComplex*>(src), static_cast<cufftReal*>(out)), op);
      break;
    case CUFFT_Z2D:
      EMBER_CUFFT_CHECK(cufftExecZ2D(plan->handle, static_cast<cufftDoubleComplex*>(src),
                                     static_cast<cufftDoubleReal*>(out)),
                        op);
      break;
    default: EMBER_FAIL(op, ": unknown cuFFT plan type ", key.type);
  }
}

int16_t device_index_of(const Tensor& t, const char* op) {
  EMBER_CHECK(t.device().is_cuda(), op, ": the CUDA kernel got a tensor on ", t.device());
  return detail::resolve_index(t.device().index, op);
}

// The permutation putting the dims not in `dims` first (in order), then `dims` (in order).
DimVector batch_first(int64_t ndim, IntArrayRef dims) {
  DimVector perm;
  for (int64_t d = 0; d < ndim; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  for (int64_t d : dims) perm.push_back(d);
  return perm;
}

DimVector inverse_of(const DimVector& perm) {
  DimVector inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

double scale_factor(Scale scale, double n) {
  switch (scale) {
    case Scale::None: return 1.0;
    case Scale::InvSqrtN: return 1.0 / std::sqrt(n);
    case Scale::InvN: return 1.0 / n;
  }
  return 1.0;
}

double signal_numel(const Tensor& t, IntArrayRef dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(t.size(d));
  return n;
}

// Scales a result made by this file (a permutation of a fresh contiguous buffer) in place.
void scale_result(const Tensor& t, Scale scale, double n, const char* op) {
  const double factor = scale_factor(scale, n);
  if (factor == 1.0 || t.numel() == 0) return;
  const int16_t index = device_index_of(t, op);
  detail::ScopedDevice on(index, op);
  const bool is_double = t.dtype() == kFloat64 || t.dtype() == kComplex128;
  const int64_t reals = t.numel() * (t.is_complex() ? 2 : 1);
  fft_scale(t.data_ptr(), reals, factor, is_double, detail::current_cuda_stream(index), op);
}

// The dims of `dims` whose size in t is not 1 (size-1 transforms are identities).
DimVector nontrivial(const Tensor& t, IntArrayRef dims) {
  DimVector out;
  for (int64_t d : dims)
    if (t.size(d) != 1) out.push_back(d);
  return out;
}

// cuFFT wants its buffers aligned to the complex element (8 or 16 bytes); a
// slice of a real tensor may start 4 or 8 bytes off: copy it (as PyTorch).
Tensor aligned_for_cufft(const Tensor& xp) {
  const size_t complex_bytes = xp.is_complex() ? xp.element_size() : 2 * xp.element_size();
  if (reinterpret_cast<uintptr_t>(xp.data_ptr()) % complex_bytes == 0) return xp;
  return xp.clone();
}

// One C2C plan over `dims` (1 to 3) of complex x; the result is a new buffer
// in batch-first order, returned permuted back to x's dim order.
Tensor c2c_once(const Tensor& x, IntArrayRef dims, bool forward, const char* op) {
  const DimVector perm = batch_first(x.dim(), dims);
  const Tensor xp = aligned_for_cufft(x.permute(perm).contiguous());
  Tensor y = empty(xp.sizes(), xp.options());
  FFTPlanKey key;
  key.type = cufft_type(Kind::C2C, x.dtype() == kComplex128);
  key.rank = static_cast<int>(dims.size());
  int64_t signal = 1;
  for (int i = 0; i < key.rank; ++i) {
    key.n[i] = key.inembed[i] = key.onembed[i] = x.size(dims[i]);
    signal *= key.n[i];
  }
  key.idist = key.odist = signal;
  key.batch = xp.numel() / signal;
  execute(key, device_index_of(x, op), xp.data_ptr(), y.data_ptr(), forward, op);
  return y.permute(inverse_of(perm));
}

// Unscaled C2C over every dim of `dims`, in plans of up to 3 dims (from the
// last). Returns a fresh buffer (permuted view) unless dims is empty.
Tensor c2c_all(const Tensor& x, IntArrayRef dims, bool forward, const char* op) {
  Tensor cur = x;
  int64_t end = static_cast<int64_t>(dims.size());
  while (end > 0) {
    const int64_t begin = std::max<int64_t>(0, end - 3);
    cur = c2c_once(cur, dims.slice(begin, end - begin), forward, op);
    end = begin;
  }
  return cur;
}

Tensor c2c_kernel(const Tensor& in, IntArrayRef dims, Scale scale, bool forward) {
  const char* op = "fft_c2c";
  EMBER_CHECK(in.dtype() == kComplex64 || in.dtype() == kComplex128, op,
              ": expected a complex64 or complex128 input, got ", in.dtype());
  if (in.numel() == 0) return empty(in.sizes(), in.options());
  const DimVector transformed = nontrivial(in, dims);
  Tensor out = transformed.empty() ? in.clone() : c2c_all(in, transformed, forward, op);
  scale_result(out, scale, signal_numel(in, dims), op);
  return out;
}

Tensor r2c_kernel(const Tensor& in, IntArrayRef dims, Scale scale, bool onesided) {
  const char* op = "fft_r2c";
  EMBER_CHECK(in.dtype() == kFloat32 || in.dtype() == kFloat64, op, ": expected a float32 or float64 input, got ",
              in.dtype());
  const bool is_double = in.dtype() == kFloat64;
  const DType complex_dtype = is_double ? kComplex128 : kComplex64;
  const int64_t last = dims.back(), full = in.size(last), half = full / 2 + 1;
  DimVector out_sizes(in.sizes());
  if (onesided) out_sizes[last] = half;
  if (in.numel() == 0) return empty(out_sizes, in.options().dtype(complex_dtype));
  Tensor out;
  DimVector rest;  // dims left for c2c after the real transform
  if (full == 1) {
    // A length-1 real transform: the value itself, as a complex number.
    out = empty(in.sizes(), in.options().dtype(complex_dtype));
    out.copy_(in);
    rest = nontrivial(in, dims.slice(0, dims.size() - 1));
  } else {
    // The real plan: the last dim and up to 2 non-trivial dims before it.
    const DimVector others = nontrivial(in, dims.slice(0, dims.size() - 1));
    const size_t lead = others.size() > 2 ? others.size() - 2 : 0;
    rest.assign(others.begin(), others.begin() + static_cast<int64_t>(lead));
    DimVector plan_dims(IntArrayRef(others).slice(lead));
    plan_dims.push_back(last);
    const DimVector perm = batch_first(in.dim(), plan_dims);
    const Tensor xp = aligned_for_cufft(in.permute(perm).contiguous());
    DimVector y_sizes(xp.sizes());
    y_sizes.back() = onesided ? half : full;
    Tensor y = empty(y_sizes, in.options().dtype(complex_dtype));
    FFTPlanKey key;
    key.type = cufft_type(Kind::R2C, is_double);
    key.rank = static_cast<int>(plan_dims.size());
    int64_t signal = 1, out_signal = 1;
    for (int i = 0; i < key.rank; ++i) {
      key.n[i] = key.inembed[i] = key.onembed[i] = in.size(plan_dims[i]);
      signal *= key.n[i];
    }
    key.onembed[key.rank - 1] = y_sizes.back();  // the half spectrum, in rows of half or full length
    for (int i = 0; i < key.rank; ++i) out_signal *= key.onembed[i];
    key.idist = signal;
    key.odist = out_signal;
    key.batch = xp.numel() / signal;
    const int16_t index = device_index_of(in, op);
    execute(key, index, xp.data_ptr(), y.data_ptr(), /*forward=*/true, op);
    if (!onesided) {
      detail::ScopedDevice on(index, op);
      fft_fill_conjugate_symmetry(y.data_ptr(), key.batch, key.n.data(), key.rank, is_double,
                                  detail::current_cuda_stream(index), op);
    }
    out = y.permute(inverse_of(perm));
  }
  if (!rest.empty()) out = c2c_all(out, rest, /*forward=*/true, op);
  scale_result(out, scale, signal_numel(in, dims), op);
  return out;
}

Tensor c2r_kernel(const Tensor& in, IntArrayRef dims, Scale scale, int64_t last_dim_size) {
  const char* op = "fft_c2r";
  EMBER_CHECK(in.dtype() == kComplex64 || in.dtype() == kComplex128, op,
              ": expected a complex64 or complex128 input, got ", in.dtype());
  const int64_t last = dims.back(), half = last_dim_size / 2 + 1;
  EMBER_CHECK(in.size(last) == half, op, ": expected ", half, " bins along dim ", last, " for an output of length ",
              last_dim_size, ", got ", in.size(last));
  const bool is_double = in.dtype() == kComplex128;
  const DType real_dtype = is_double ? kFloat64 : kFloat32;
  DimVector out_sizes(in.sizes());
  out_sizes[last] = last_dim_size;
  if (in.numel() == 0) return empty(out_sizes, in.options().dtype(real_dtype));
  // The dims before the last: inverse c2c first (a fresh buffer, or `in` itself when none).
  const DimVector before = nontrivial(in, dims.slice(0, dims.size() - 1));
  const Tensor x = before.empty() ? in : c2c_all(in, before, /*forward=*/false, op);
  Tensor out;
  if (last_dim_size == 1) {
    out = x.real().contiguous();  // one bin: its real part
    if (out.data_ptr() == in.data_ptr()) out = out.clone();
  } else {
    const DimVector perm = batch_first(in.dim(), IntArrayRef(&dims.back(), 1));
    Tensor xp = aligned_for_cufft(x.permute(perm).contiguous());
    // cuFFT's C2R overwrites its input: never the caller's tensor.
    if (xp.data_ptr() == in.data_ptr()) xp = xp.clone();
    const int64_t rows = xp.numel() / half;
    const int16_t index = device_index_of(in, op);
    {
      detail::ScopedDevice on(index, op);
      fft_zero_unrepresentable_imag(xp.data_ptr(), rows, last_dim_size, is_double,
                                    detail::current_cuda_stream(index), op);
    }
    DimVector y_sizes(xp.sizes());
    y_sizes.back() = last_dim_size;
    Tensor y = empty(y_sizes, in.options().dtype(real_dtype));
    FFTPlanKey key;
    key.type = cufft_type(Kind::C2R, is_double);
    key.rank = 1;
    key.n[0] = last_dim_size;
    key.inembed[0] = half;
    key.onembed[0] = last_dim_size;
    key.idist = half;
    key.odist = last_dim_size;
    key.batch = rows;
    execute(key, index, xp.data_ptr(), y.data_ptr(), /*forward=*/false, op);
    out = y.permute(inverse_of(perm));
  }
  DimVector real_sizes(in.sizes());
  real_sizes[last] = last_dim_size;
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(real_sizes[d]);
  scale_result(out, scale, n, op);
  return out;
}

}  // namespace

// The input's dtype, as the CPU's kernels (fft_exec.cpp).
EMBER_REGISTER_CUDA_KERNEL(fft::detail::fft_c2c_slot, c2c_kernel, kMaskComplex);
EMBER_REGISTER_CUDA_KERNEL(fft::detail::fft_r2c_slot, r2c_kernel, kMaskFloat);
EMBER_REGISTER_CUDA_KERNEL(fft::detail::fft_c2r_slot, c2r_kernel, kMaskComplex);

}  // namespace kernels
}  // namespace ember::cuda
