#pragma once
// DispatchStub: a typed kernel slot per op family, one entry per device type
// (ATen's DispatchStub). Declared here, defined in the op family's file, and
// filled by kernels/cpu/*.cpp (and the CUDA backend when it is linked) through
// EMBER_REGISTER_KERNEL. Every stub is listed in stub_registry() so a test can
// check that no slot was left empty (e.g. by a linker dropping a registration).
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/error.h"

namespace ember {

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
  Fn* operator()(Device device) const {
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
