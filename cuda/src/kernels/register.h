#pragma once
// EMBER_REGISTER_CUDA_KERNEL: fills a kernel slot for DeviceType::CUDA, only
// on a machine with a GPU (Note [CUDA registration] in registration.cpp).
#include "ember/cuda/runtime.h"
#include "kernels/slots/kernel_slot.h"

#define EMBER_CUDA_REGISTER_IMPL2(slot, fn, mask, line) \
  static const bool ember_cuda_kernel_registered_##line = ::ember::cuda::is_available() && (slot).set(::ember::DeviceType::CUDA, fn, mask)
#define EMBER_CUDA_REGISTER_IMPL(slot, fn, mask, line) EMBER_CUDA_REGISTER_IMPL2(slot, fn, mask, line)
#define EMBER_REGISTER_CUDA_KERNEL(slot, fn, mask) EMBER_CUDA_REGISTER_IMPL(slot, fn, mask, __LINE__)
// A family slot's per-op dtype masks (num_ops entries, static storage).
#define EMBER_CUDA_OP_DTYPES_IMPL2(slot, masks, line) \
  static const bool ember_cuda_op_dtypes_##line = ::ember::cuda::is_available() && (slot).set_op_dtypes(::ember::DeviceType::CUDA, masks)
#define EMBER_CUDA_OP_DTYPES_IMPL(slot, masks, line) EMBER_CUDA_OP_DTYPES_IMPL2(slot, masks, line)
#define EMBER_REGISTER_CUDA_OP_DTYPES(slot, masks) EMBER_CUDA_OP_DTYPES_IMPL(slot, masks, __LINE__)
