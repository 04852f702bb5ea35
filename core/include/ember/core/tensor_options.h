#pragma once
// TensorOptions: dtype, device and layout for factory functions, as torch::TensorOptions.
#include <optional>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/memory_format.h"

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(DType t) : dtype_(t) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions(DeviceType d) : device_(Device(d)) {}
  TensorOptions(MemoryFormat f) : memory_format_(f) {}

  TensorOptions dtype(DType t) const {
    auto o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions device(Device d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions memory_format(MemoryFormat f) const {
    auto o = *this;
    o.memory_format_ = f;
    return o;
  }

  DType dtype() const { return dtype_.value_or(default_dtype()); }
  bool has_dtype() const { return dtype_.has_value(); }
  // The CPU unless set; *_like factories take the unset device from their tensor.
  Device device() const { return device_.value_or(kCPU); }
  bool has_device() const { return device_.has_value(); }
  MemoryFormat memory_format() const { return memory_format_; }
  // Fills in what this leaves unset (used by *_like and factories of values).
  TensorOptions merged_with(DType t) const { return has_dtype() ? *this : dtype(t); }
  TensorOptions merged_with(DType t, Device d) const {
    TensorOptions o = merged_with(t);
    return has_device() ? o : o.device(d);
  }

 private:
  std::optional<DType> dtype_;
  std::optional<Device> device_;
  MemoryFormat memory_format_ = MemoryFormat::Contiguous;
};

inline TensorOptions dtype(DType t) { return TensorOptions(t); }
inline TensorOptions device(Device d) { return TensorOptions(d); }

}  // namespace ember
