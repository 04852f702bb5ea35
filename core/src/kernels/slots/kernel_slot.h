#pragma once
// KernelSlot: a typed kernel slot per op family, one entry per device type
// (ATen's per-device dispatch table). Declared here, defined in the op family's file, and
// filled by kernels/cpu/*.cpp (and the CUDA backend when it is linked) through
// EMBER_REGISTER_KERNEL. Every slot is listed in slot_registry() so a test can
// check that no slot was left empty (e.g. by a linker dropping a registration).
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/error.h"
#include "ember/core/host_access.h"
#include "ember/core/tensor.h"

namespace ember {

namespace detail {
// Note [Conjugate bit] (ops/conj_views.cpp): kernels behind a slot get plain
// values. A Tensor argument with the conjugate/negative bit is replaced by a
// copy of its values laid out like it (materialize_keeping_geometry). The
// kernel's signature says which arguments it writes: a `Tensor&` parameter is
// an output (out=, in-place), so after the kernel returns its copy is written
// back through the bits (it then stores conj()/neg() of what was written); a
// `const Tensor&` parameter is an input and its copy is dropped. (Deciding from
// the signature, not from comparing bytes, keeps device memory off the host.)
// Kernels that consume the bits themselves (BLAS products) are called through
// KernelSlot::fused().
class LazyBitsScope {
 public:
  LazyBitsScope() = default;
  LazyBitsScope(const LazyBitsScope&) = delete;
  LazyBitsScope& operator=(const LazyBitsScope&) = delete;
  // t itself, or the copy standing for it.
  Tensor& hold(const Tensor& t, bool is_output);
  // Writes the outputs' copies back; called after the kernel returned.
  void write_back();

 private:
  static constexpr int kMax = 8;
  struct Held {
    Tensor original, values;
    bool is_output = false;
  };
  Held held_[kMax];
  int n_ = 0;
};

template <class P>
inline constexpr bool is_tensor_param_v = std::is_same_v<std::remove_cvref_t<P>, Tensor>;
// A non-const Tensor reference: an argument the kernel writes.
template <class P>
inline constexpr bool is_output_param_v = std::is_same_v<P, Tensor&>;

template <class P, class A>
P substitute_lazy(LazyBitsScope& scope, A&& a) {
  if constexpr (is_tensor_param_v<P>) {
    const Tensor& t = a;
    if (t.defined() && t.impl()->has_lazy_bits()) return static_cast<P>(scope.hold(t, is_output_param_v<P>));
  }
  return static_cast<P>(std::forward<A>(a));
}

template <class Fn>
class SlotCall;
template <class R, class... Params>
class SlotCall<R(Params...)> {
 public:
  explicit SlotCall(R (*f)(Params...)) : f_(f) {}
  R operator()(Params... params) const {
    KernelSlotScope kernel_scope;  // Note [Host access]
    if (!(is_lazy(params) || ...)) return f_(std::forward<Params>(params)...);
    LazyBitsScope scope;
    if constexpr (std::is_void_v<R>) {
      f_(substitute_lazy<Params>(scope, std::forward<Params>(params))...);
      scope.write_back();
    } else {
      R result = f_(substitute_lazy<Params>(scope, std::forward<Params>(params))...);
      scope.write_back();
      return result;
    }
  }

 private:
  template <class T>
  static bool is_lazy(const T& v) {
    if constexpr (is_tensor_param_v<T>) return v.defined() && v.impl()->has_lazy_bits();
    else return false;
  }
  R (*f_)(Params...);
};

// A kernel that consumes the bits itself: called as is, inside a kernel slot.
template <class Fn>
class FusedCall;
template <class R, class... Params>
class FusedCall<R(Params...)> {
 public:
  explicit FusedCall(R (*f)(Params...)) : f_(f) {}
  R operator()(Params... params) const {
    KernelSlotScope kernel_scope;  // Note [Host access]
    return f_(std::forward<Params>(params)...);
  }

 private:
  R (*f_)(Params...);
};
}  // namespace detail

struct SlotEntry {
  const char* name;
  void** table;           // kNumDeviceTypes function pointers
  uint32_t* dtype_masks;  // kNumDeviceTypes masks of the dtypes each kernel computes
  // A family slot (one kernel for an op enum): the ops' names, and per device
  // type the dtypes its kernel computes for each op (null: what dtype_masks says).
  const char* const* op_names;
  int num_ops;
  const uint32_t** op_dtypes;  // kNumDeviceTypes pointers to num_ops masks
};
std::vector<SlotEntry>& slot_registry();
// What `type`'s backend lacks, compared with the CPU's (the reference backend):
// each slot with no kernel ("copy_"), each plain slot whose kernel computes
// fewer dtypes than the CPU's ("sort (float16)": the dtype masks given to
// set()), and for family slots each op that the CPU's kernel computes for a
// dtype that `type`'s does not ("unary: erf (float16, bfloat16)": the per-op
// masks given to set_op_dtypes(), within the slot's mask).
std::vector<std::string> missing_kernels(DeviceType type);
// Fills every slot of `to` that has no kernel with the kernel of `from` (for a
// backend whose memory the `from` kernels can work on: the test device runs
// the CPU kernels). Returns how many slots it filled.
int fill_slots_from(DeviceType to, DeviceType from);

template <class Fn>
class KernelSlot {
 public:
  // constexpr, so the table is filled with nulls at compile time: kernels may
  // register (during dynamic initialization) before or after this file's
  // initializers run without being wiped.
  constexpr explicit KernelSlot(const char* name) : name_(name) {}
  // A family slot: op_names[i] names op enum value i.
  constexpr KernelSlot(const char* name, const char* const* op_names, int num_ops)
      : name_(name), op_names_(op_names), num_ops_(num_ops) {}
  // The kernel for `device`, called with conjugate/negative views resolved
  // (detail::LazyBitsScope).
  detail::SlotCall<Fn> operator()(Device device) const { return detail::SlotCall<Fn>(kernel(device)); }
  // The kernel itself, for callers whose kernel consumes the bits (Note [Conjugate bit]).
  detail::FusedCall<Fn> fused(Device device) const { return detail::FusedCall<Fn>(kernel(device)); }
  Fn* kernel(Device device) const {
    Fn* f = table_[static_cast<int>(device.type)];
    EMBER_CHECK(f != nullptr, name_, ": no kernel for device ", device,
                " (is Ember built with that backend?)");
    return f;
  }
  // dtypes: the dtypes the kernel computes (a dtype_bit mask); an op file asks
  // supports() before routing to the slot (e.g. conv: oneDNN runs float32, the
  // op computes other dtypes with a product of columns). The default is every
  // plain dtype: a kernel claims quantized dtypes only by naming them.
  bool set(DeviceType type, Fn* f, uint32_t dtypes = kMaskAll) {
    table_[static_cast<int>(type)] = f;
    dtypes_[static_cast<int>(type)] = f ? dtypes : 0;
    return true;
  }
  bool supports(Device device, DType dtype) const {
    const int t = static_cast<int>(device.type);
    return table_[t] != nullptr && (dtypes_[t] & dtype_bit(dtype)) != 0;
  }
  // A family slot's per-op coverage: masks[i] is the dtypes `type`'s kernel
  // computes for op i (num_ops entries, static storage).
  bool set_op_dtypes(DeviceType type, const uint32_t* masks) {
    op_dtypes_[static_cast<int>(type)] = masks;
    return true;
  }
  bool supports(Device device, int op, DType dtype) const {
    const uint32_t* masks = op_dtypes_[static_cast<int>(device.type)];
    return supports(device, dtype) && (masks == nullptr || (masks[op] & dtype_bit(dtype)) != 0);
  }
  const char* name() const { return name_; }
  // For the registry (SlotListing): the slots as untyped pointers, their dtype masks, per-op coverage.
  void** table() const { return reinterpret_cast<void**>(const_cast<Fn**>(table_)); }
  uint32_t* dtype_masks() const { return const_cast<uint32_t*>(dtypes_); }
  const char* const* op_names() const { return op_names_; }
  int num_ops() const { return num_ops_; }
  const uint32_t** op_dtypes() const { return const_cast<const uint32_t**>(op_dtypes_); }

 private:
  const char* name_;
  const char* const* op_names_ = nullptr;
  int num_ops_ = 0;
  Fn* table_[kNumDeviceTypes] = {};
  uint32_t dtypes_[kNumDeviceTypes] = {};
  const uint32_t* op_dtypes_[kNumDeviceTypes] = {};
};

// Lists a slot in slot_registry() (a separate object so the slot itself stays
// constant-initialized).
struct SlotListing {
  template <class Fn>
  explicit SlotListing(const KernelSlot<Fn>& slot) {
    slot_registry().push_back(
        {slot.name(), slot.table(), slot.dtype_masks(), slot.op_names(), slot.num_ops(), slot.op_dtypes()});
  }
};

}  // namespace ember

// EMBER_DEFINE_SLOT(copy_slot, CopyFn, "copy_"): defines and lists a slot.
#define EMBER_DEFINE_SLOT(slot, fn_type, name)    \
  constinit KernelSlot<fn_type> slot(name);     \
  static const SlotListing slot##_listing(slot)
// A family slot over an op enum whose names are op_names[0, num_ops).
#define EMBER_DEFINE_FAMILY_SLOT(slot, fn_type, name, op_names, num_ops) \
  constinit KernelSlot<fn_type> slot(name, op_names, num_ops);           \
  static const SlotListing slot##_listing(slot)

#define EMBER_REGISTER_KERNEL_IMPL2(slot, type, fn, line) \
  static const bool ember_kernel_registered_##line = (slot).set(::ember::DeviceType::type, fn)
#define EMBER_REGISTER_KERNEL_IMPL(slot, type, fn, line) EMBER_REGISTER_KERNEL_IMPL2(slot, type, fn, line)
#define EMBER_REGISTER_KERNEL(slot, type, fn) EMBER_REGISTER_KERNEL_IMPL(slot, type, fn, __LINE__)
// A kernel that computes only the dtypes of `mask` (KernelSlot::supports).
#define EMBER_REGISTER_KERNEL_FOR_DTYPES_IMPL2(slot, type, fn, mask, line) \
  static const bool ember_kernel_registered_##line = (slot).set(::ember::DeviceType::type, fn, mask)
#define EMBER_REGISTER_KERNEL_FOR_DTYPES_IMPL(slot, type, fn, mask, line) \
  EMBER_REGISTER_KERNEL_FOR_DTYPES_IMPL2(slot, type, fn, mask, line)
#define EMBER_REGISTER_KERNEL_FOR_DTYPES(slot, type, fn, mask) \
  EMBER_REGISTER_KERNEL_FOR_DTYPES_IMPL(slot, type, fn, mask, __LINE__)
