#pragma once
// <ember/torch.h>, part 1: libtorch's tensor-level spelling (torch::Tensor,
// dtypes, devices, TensorOptions with requires_grad, factories, grad guards,
// seeds, torch::str, TORCH_CHECK / AT_ASSERT, torch::cuda) over Ember's core.
//
// Note [No using-directive of ember in torch]: namespace torch names Ember's
// entities one by one (using-declarations) instead of `using namespace ember`.
// Programs write `using namespace torch;` and then `nn::Linear`, `kCUDA`,
// `optim::SGD`; with a using-directive, ember::nn and torch::nn (or
// ember::kCUDA, a Device, and torch::kCUDA, a DeviceType) would both be
// visible there and every such name would be ambiguous. Functions that Ember
// already has at namespace level are brought in by using-declarations (the same
// entity, so an unqualified call found through ADL is not ambiguous either);
// only what libtorch spells differently is written here.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/autograd/autograd.h"
#include "ember/autograd/function.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/device.h"
#include "ember/core/device_guard.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/core/ordered_dict.h"
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/core/tensor_options.h"
#include "ember/ops/factories.h"
#include "ember/ops/random.h"

namespace c10 {
// libtorch programs spell optionals c10::optional / c10::nullopt (std's here).
template <class T>
using optional = std::optional<T>;
using std::nullopt;
}  // namespace c10

namespace torch {

// ---- types ----
using ember::IntArrayRef;
using ember::MemoryFormat;
using ember::Scalar;
using ember::Tensor;
using ember::TensorList;
using Dtype = ember::DType;
using ScalarType = ember::DType;
using ember::Device;
using ember::DeviceType;
using tensor_list = std::vector<Tensor>;
using ember::ArrayRef;
using ember::OrderedDict;
template <class T>
using optional = std::optional<T>;
using std::nullopt;

// ---- dtypes (torch/types.h, c10/core/ScalarType.h) ----
using ember::kBFloat16;
using ember::kBool;
using ember::kByte;
using ember::kChar;
using ember::kComplexDouble;
using ember::kComplexFloat;
using ember::kDouble;
using ember::kFloat;
using ember::kFloat16;
using ember::kFloat32;
using ember::kFloat64;
using ember::kHalf;
using ember::kInt;
using ember::kInt16;
using ember::kInt32;
using ember::kInt64;
using ember::kInt8;
using ember::kLong;
using ember::kShort;
using ember::kUInt8;
inline constexpr ember::DType kComplex64 = ember::kComplex64;
inline constexpr ember::DType kComplex128 = ember::kComplex128;
inline constexpr ember::DType kU8 = ember::kUInt8;
inline constexpr ember::DType kI8 = ember::kInt8;
inline constexpr ember::DType kI16 = ember::kInt16;
inline constexpr ember::DType kI32 = ember::kInt32;
inline constexpr ember::DType kI64 = ember::kInt64;
inline constexpr ember::DType kF16 = ember::kFloat16;
inline constexpr ember::DType kF32 = ember::kFloat32;
inline constexpr ember::DType kF64 = ember::kFloat64;

// ---- devices ----
// Note [Device type constants]: libtorch's kCPU and kCUDA are DeviceTypes
// (`torch::DeviceType t = torch::kCUDA; torch::Device d(t);`), and programs
// also pass them where a Device is expected (`x.to(torch::kCPU)`). A plain
// DeviceType would make `x.to(kCPU)` ambiguous in Ember (Tensor::to takes a
// Device or a TensorOptions, both constructible from a DeviceType), so the
// constants are a Device (index -1, "the current device", as
// Device(DeviceType)) that also converts to its DeviceType.
struct DeviceTypeConstant : ember::Device {
  constexpr explicit DeviceTypeConstant(ember::DeviceType t) : ember::Device(t) {}
  constexpr operator ember::DeviceType() const { return type; }  // NOLINT(google-explicit-constructor)
  friend constexpr bool operator==(DeviceTypeConstant a, ember::DeviceType b) { return a.type == b; }
  friend constexpr bool operator==(ember::DeviceType a, DeviceTypeConstant b) { return a == b.type; }
  friend constexpr bool operator!=(DeviceTypeConstant a, ember::DeviceType b) { return a.type != b; }
  friend constexpr bool operator!=(ember::DeviceType a, DeviceTypeConstant b) { return a != b.type; }
};
inline constexpr DeviceTypeConstant kCPU{ember::DeviceType::CPU};
inline constexpr DeviceTypeConstant kCUDA{ember::DeviceType::CUDA};

namespace cuda {
// Whether a CUDA backend is linked and sees a device (torch::cuda::is_available).
inline size_t device_count() {
  ember::DeviceGuardImpl* impl = ember::find_device_guard_impl(ember::DeviceType::CUDA);
  return impl == nullptr ? 0 : static_cast<size_t>(impl->device_count());
}
inline bool is_available() { return device_count() > 0; }
inline bool cudnn_is_available() { return false; }  // Ember has no cuDNN path
inline void manual_seed(uint64_t seed) { ember::manual_seed(seed); }
inline void manual_seed_all(uint64_t seed) { ember::manual_seed(seed); }
inline void synchronize(int64_t device_index = -1) {
  if (is_available()) ember::synchronize(ember::Device(ember::DeviceType::CUDA, static_cast<int16_t>(device_index)));
}
}  // namespace cuda

// ---- TensorOptions with requires_grad ----
// Ember's TensorOptions (dtype, device, memory format) plus libtorch's
// requires_grad flag, which the factories below apply to what they create
// (`torch::ones({2, 2}, torch::requires_grad())`). It converts from Ember's
// options only, so a DType or a Device passed to a factory picks Ember's own
// overload without ambiguity.
class TensorOptions : public ember::TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(const ember::TensorOptions& o) : ember::TensorOptions(o) {}  // NOLINT(google-explicit-constructor)
  using ember::TensorOptions::device;
  using ember::TensorOptions::dtype;
  using ember::TensorOptions::memory_format;
  TensorOptions dtype(ember::DType t) const { return with(ember::TensorOptions::dtype(t)); }
  TensorOptions device(ember::Device d) const { return with(ember::TensorOptions::device(d)); }
  TensorOptions device(ember::DeviceType t, int16_t index = -1) const { return device(ember::Device(t, index)); }
  TensorOptions memory_format(ember::MemoryFormat f) const { return with(ember::TensorOptions::memory_format(f)); }
  TensorOptions requires_grad(bool on) const {
    TensorOptions o = *this;
    o.requires_grad_ = on;
    return o;
  }
  bool requires_grad() const { return requires_grad_; }
  // libtorch's layouts: only strided tensors exist in Ember.
  ember::DType scalar_type() const { return dtype(); }

 private:
  TensorOptions with(const ember::TensorOptions& base) const {
    TensorOptions o(base);
    o.requires_grad_ = requires_grad_;
    return o;
  }
  bool requires_grad_ = false;
};

inline TensorOptions requires_grad(bool on = true) { return TensorOptions().requires_grad(on); }
inline TensorOptions dtype(ember::DType t) { return TensorOptions().dtype(t); }
inline TensorOptions device(ember::Device d) { return TensorOptions().device(d); }
inline TensorOptions memory_format(ember::MemoryFormat f) { return TensorOptions().memory_format(f); }

namespace detail {
inline Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}
}  // namespace detail

// ---- factories: Ember's, plus overloads that honour requires_grad ----
using ember::arange;
using ember::empty;
using ember::empty_like;
using ember::eye;
using ember::from_blob;
using ember::full;
using ember::full_like;
using ember::linspace;
using ember::logspace;
using ember::ones;
using ember::ones_like;
using ember::rand;
using ember::rand_like;
using ember::randint;
using ember::randint_like;
using ember::randn;
using ember::randn_like;
using ember::randperm;
using ember::scalar_tensor;
using ember::tensor;
using ember::zeros;
using ember::zeros_like;

#define EMBER_TORCH_SIZED_FACTORY(name)                                    \
  inline Tensor name(IntArrayRef sizes, const TensorOptions& options) {    \
    return detail::finish(ember::name(sizes, options), options);           \
  }
EMBER_TORCH_SIZED_FACTORY(empty)
EMBER_TORCH_SIZED_FACTORY(zeros)
EMBER_TORCH_SIZED_FACTORY(ones)
EMBER_TORCH_SIZED_FACTORY(rand)
EMBER_TORCH_SIZED_FACTORY(randn)
#undef EMBER_TORCH_SIZED_FACTORY
#define EMBER_TORCH_LIKE_FACTORY(name)                                     \
  inline Tensor name(const Tensor& t, const TensorOptions& options) {      \
    return detail::finish(ember::name(t, options), options);               \
  }
EMBER_TORCH_LIKE_FACTORY(empty_like)
EMBER_TORCH_LIKE_FACTORY(zeros_like)
EMBER_TORCH_LIKE_FACTORY(ones_like)
EMBER_TORCH_LIKE_FACTORY(rand_like)
EMBER_TORCH_LIKE_FACTORY(randn_like)
#undef EMBER_TORCH_LIKE_FACTORY
inline Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options) {
  return detail::finish(ember::full(sizes, value, options), options);
}
inline Tensor arange(const Scalar& end, const TensorOptions& options) {
  return detail::finish(ember::arange(end, options), options);
}
inline Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return detail::finish(ember::arange(start, end, options), options);
}
inline Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  return detail::finish(ember::linspace(start, end, steps, options), options);
}
inline Tensor eye(int64_t n, const TensorOptions& options) { return detail::finish(ember::eye(n, options), options); }
template <class T>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options) {
  return detail::finish(ember::tensor(values, static_cast<const ember::TensorOptions&>(options)), options);
}
template <class T>
Tensor tensor(const std::vector<T>& values, const TensorOptions& options) {
  return detail::finish(ember::tensor(values, static_cast<const ember::TensorOptions&>(options)), options);
}
// torch::tensor(3.5), torch::tensor(7, torch::kF64): a 0-dim tensor. As libtorch:
// a floating value takes the default dtype, an integer int64, a bool bool.
template <class T>
  requires std::is_arithmetic_v<T>
Tensor tensor(T value, const ember::TensorOptions& options = {}) {
  ember::DType natural = std::is_same_v<T, bool>          ? ember::kBool
                         : std::is_floating_point_v<T>    ? ember::default_dtype()
                                                          : ember::kInt64;
  return ember::scalar_tensor(Scalar(value), options.merged_with(natural));
}
template <class T>
  requires std::is_arithmetic_v<T>
Tensor tensor(T value, const TensorOptions& options) {
  return detail::finish(tensor(value, static_cast<const ember::TensorOptions&>(options)), options);
}

// ---- grad modes and seeds ----
using ember::AutoGradMode;
using ember::EnableGradGuard;
using ember::InferenceMode;
using ember::is_grad_enabled;
using ember::manual_seed;
using ember::NoGradGuard;
using ember::set_grad_enabled;
using ember::Generator;
using ember::default_dtype;
using ember::set_default_dtype;

namespace autograd {
using ember::autograd::AutogradContext;
using ember::autograd::Function;
using ember::autograd::grad;
using ember::autograd::Node;
using ember::autograd::variable_list;
using ember::NoGradGuard;
using Variable = ember::Tensor;
using tensor_list = std::vector<ember::Tensor>;
}  // namespace autograd

// ---- utilities ----
// torch::str(a, b, ...): the arguments streamed into one string (c10::str).
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  ((os << args), ...);
  return os.str();
}

}  // namespace torch

// TORCH_CHECK(cond, message parts...) and AT_ASSERT(cond): an ember::Error (the
// exception type Ember raises everywhere; libtorch's c10::Error) naming the
// failed condition and the message.
#define TORCH_CHECK(cond, ...) \
  EMBER_CHECK(cond, "Expected " #cond " to be true, but got false. " __VA_OPT__(, ) __VA_ARGS__)
#define AT_ASSERT(cond, ...) \
  EMBER_CHECK(cond, "Assertion failed: " #cond __VA_OPT__(, " ", ) __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) AT_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)
