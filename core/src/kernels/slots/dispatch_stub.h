#pragma once
// DispatchStub: a typed kernel slot per op family, one entry per device type
// (ATen's DispatchStub). Declared here, defined in the op family's file, and
// filled by kernels/cpu/*.cpp (and the CUDA backend when it is linked) through
// EMBER_REGISTER_KERNEL. Every stub is listed in stub_registry() so a test can
// check that no slot was left empty (e.g. by a linker dropping a registration).
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember {

namespace detail {
// Note [Conjugate bit] (ops/conj_views.cpp): kernels behind a stub get plain
// values. A Tensor argument with the conjugate/negative bit is replaced by a
// copy of its values laid out like it (materialize_keeping_geometry); after
// the kernel, a copy the kernel changed (an output: out=, in-place) is written
// back through the bits, so it stores conj()/neg() of what was written.
// Unchanged copies (inputs) are dropped. Kernels that consume the bits
// themselves (BLAS products) are called through DispatchStub::fused().
class LazyBitsScope {
 public:
  LazyBitsScope() = default;
  LazyBitsScope(const LazyBitsScope&) = delete;
  LazyBitsScope& operator=(const LazyBitsScope&) = delete;
  ~LazyBitsScope();  // writes back changed copies (unless the kernel threw)
  // t itself, or the copy standing for it.
  Tensor& hold(const Tensor& t);

 private:
  static constexpr int kMax = 8;
  struct Held {
    Tensor original, values;
    std::vector<unsigned char> snapshot;  // the values' bytes before the kernel
  };
  Held held_[kMax];
  int n_ = 0;
  int uncaught_ = std::uncaught_exceptions();
};

template <class P, class A>
P substitute_lazy(LazyBitsScope& scope, A&& a) {
  if constexpr (std::is_same_v<std::remove_cvref_t<P>, Tensor>) {
    const Tensor& t = a;
    if (t.defined() && t.impl()->has_lazy_bits()) return static_cast<P>(scope.hold(t));
  }
  return static_cast<P>(std::forward<A>(a));
}

template <class Fn>
class StubCall;
template <class R, class... Params>
class StubCall<R(Params...)> {
 public:
  explicit StubCall(R (*f)(Params...)) : f_(f) {}
  R operator()(Params... params) const {
    if (!(is_lazy(params) || ...)) return f_(std::forward<Params>(params)...);
    LazyBitsScope scope;
    return f_(substitute_lazy<Params>(scope, std::forward<Params>(params))...);
  }

 private:
  template <class T>
  static bool is_lazy(const T& v) {
    if constexpr (std::is_same_v<std::remove_cvref_t<T>, Tensor>) return v.defined() && v.impl()->has_lazy_bits();
    else return false;
  }
  R (*f_)(Params...);
};
}  // namespace detail

struct StubEntry {
  const char* name;
  void* const* table;  // kNumDeviceTypes function pointers
};
std::vector<StubEntry>& stub_registry();
// Names of the stubs with no kernel for `type`.
std::vector<std::string> missing_kernels(DeviceType type);

template <class Fn>
class DispatchStub {
 public:
  // constexpr, so the table is filled with nulls at compile time: kernels may
  // register (during dynamic initialization) before or after this file's
  // initializers run without being wiped.
  constexpr explicit DispatchStub(const char* name) : name_(name) {}
  // The kernel for `device`, called with conjugate/negative views resolved
  // (detail::LazyBitsScope).
  detail::StubCall<Fn> operator()(Device device) const { return detail::StubCall<Fn>(fused(device)); }
  // The kernel itself, for callers whose kernel consumes the bits (Note [Conjugate bit]).
  Fn* fused(Device device) const {
    Fn* f = table_[static_cast<int>(device.type)];
    EMBER_CHECK(f != nullptr, name_, ": no kernel for device ", device,
                " (is Ember built with that backend?)");
    return f;
  }
  bool set(DeviceType type, Fn* f) {
    table_[static_cast<int>(type)] = f;
    return true;
  }
  const char* name() const { return name_; }
  void* const* table() const { return reinterpret_cast<void* const*>(table_); }

 private:
  const char* name_;
  Fn* table_[kNumDeviceTypes] = {};
};

// Lists a stub in stub_registry() (a separate object so the stub itself stays
// constant-initialized).
struct StubListing {
  template <class Fn>
  explicit StubListing(const DispatchStub<Fn>& stub) {
    stub_registry().push_back({stub.name(), stub.table()});
  }
};

}  // namespace ember

// EMBER_DEFINE_STUB(copy_stub, CopyFn, "copy_"): defines and lists a stub.
#define EMBER_DEFINE_STUB(stub, fn_type, name)  \
  constinit DispatchStub<fn_type> stub(name);   \
  static const StubListing stub##_listing(stub)

#define EMBER_REGISTER_KERNEL_IMPL2(stub, type, fn, line) \
  static const bool ember_kernel_registered_##line = (stub).set(::ember::DeviceType::type, fn)
#define EMBER_REGISTER_KERNEL_IMPL(stub, type, fn, line) EMBER_REGISTER_KERNEL_IMPL2(stub, type, fn, line)
#define EMBER_REGISTER_KERNEL(stub, type, fn) EMBER_REGISTER_KERNEL_IMPL(stub, type, fn, __LINE__)
