#include "iter/tensor_iterator.h"

#include <algorithm>
#include <numeric>

#include "ember/core/parallel.h"
#include "ember/ops/factories.h"
#include "ops/conj_views.h"
#include "ops/op_utils.h"

namespace ember {

// Note [Type promotion]
// PyTorch's result_type splits operands into three categories: tensors with
// dims, zero-dim tensors, and wrapped numbers (C++ numbers passed to an op).
// Each category is promoted on its own; a lower category only wins when it is
// of a higher kind (bool < integral < floating < complex). So int32 tensor + 2.5
// is float32 (the default dtype), float16 tensor + float64 zero-dim tensor stays
// float16, and uint8 tensor + int64 zero-dim tensor stays uint8.
namespace {
struct ResultTypeState {
  std::optional<DType> dim, zero, wrapped;
};

std::optional<DType> promote_opt(std::optional<DType> a, DType b) {
  return a ? promote_types(*a, b) : b;
}

std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex(*higher)) return higher;
  if (is_complex(*lower)) {
    // Keep the precision of a floating higher category.
    if (is_floating_point(*higher)) return to_complex_dtype(*higher);
    return lower;
  }
  if (is_floating_point(*higher)) return higher;
  if (*higher == DType::Bool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

void update_state(ResultTypeState& s, const Tensor& t) {
  DType current = t.dtype();
  if (t.impl()->is_wrapped_number()) {
    if (is_complex(current)) current = to_complex_dtype(default_dtype());
    else if (is_floating_point(current)) current = default_dtype();
    s.wrapped = promote_opt(s.wrapped, current);
  } else if (t.dim() == 0) {
    s.zero = promote_opt(s.zero, current);
  } else {
    s.dim = promote_opt(s.dim, current);
  }
}

DType finish_state(const ResultTypeState& s) {
  auto r = combine_categories(s.dim, combine_categories(s.zero, s.wrapped));
  return r.value_or(default_dtype());
}
}  // namespace

DType result_type(ArrayRef<Tensor> tensors) {
  ResultTypeState s;
  for (const Tensor& t : tensors)
    if (t.defined()) update_state(s, t);
  return finish_state(s);
}

DType result_type(const Tensor& a, const Scalar& b) {
  Tensor wrapped = scalar_to_tensor(b);
  return result_type({a, wrapped});
}

// torch.can_cast: no casting to a lower kind (complex -> float -> int -> bool).
bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

TensorIterator& TensorIterator::add_output(const Tensor& out) {
  EMBER_CHECK(ninputs() == 0, op_name_, ": TensorIterator outputs must be added before inputs");
  Operand op;
  op.tensor = out;
  op.is_output = true;
  operands_.push_back(std::move(op));
  ++noutputs_;
  return *this;
}

TensorIterator& TensorIterator::add_input(const Tensor& in) {
  EMBER_CHECK(in.defined(), op_name_, ": got an undefined tensor as input ", ninputs());
  Operand op;
  op.tensor = in;
  op.dtype = in.dtype();
  operands_.push_back(std::move(op));
  return *this;
}

void TensorIterator::build() {
  EMBER_CHECK(ntensors() <= kMaxOperands, op_name_, ": too many operands");
  resolve_lazy_bits();
  // Device: every operand must live on one device. CPU zero-dim tensors are
  // allowed next to CUDA tensors, as in PyTorch (they become kernel scalars).
  bool have_device = false;
  for (const auto& op : operands_) {
    if (!op.tensor.defined()) continue;
    if (op.tensor.dim() == 0 && op.tensor.is_cpu() && !op.is_output) continue;
    if (!have_device) {
      device_ = op.tensor.device();
      have_device = true;
    } else {
      EMBER_CHECK(op.tensor.device() == device_, op_name_,
                  ": expected all tensors on one device, found ", device_, " and ",
                  op.tensor.device());
    }
  }
  for (const auto& op : operands_)
    EMBER_CHECK(!check_overlap_ || !op.is_output || !op.tensor.defined() || !has_internal_overlap(op.tensor), op_name_,
                ": unsupported operation: more than one element of the written-to tensor (sizes ",
                op.tensor.sizes(), ", strides ", op.tensor.strides(),
                ") refers to a single memory location; clone() it first");
  compute_shape();
  compute_types();
  reorder_dimensions();
  allocate_outputs();
  compute_strides();
  coalesce_dimensions();
  for (auto& op : operands_) op.data = static_cast<char*>(op.tensor.impl()->data());  // an address, not a read
}

// Note [Conjugate bit]: kernels see plain values. Operands with bits are
// replaced by copies holding their values with the same geometry (so kernels
// that compute offsets from an operand's strides still work); an output's copy
// is written back through its bits by finish().
void TensorIterator::resolve_lazy_bits() {
  for (auto& op : operands_) {
    if (!op.tensor.defined() || !op.tensor.impl()->has_lazy_bits()) continue;
    if (op.is_output) op.lazy_target = op.tensor;
    op.tensor = materialize_keeping_geometry(op.tensor);
  }
}

void TensorIterator::write_back_lazy_outputs() {
  for (auto& op : operands_) {
    if (!op.lazy_target.defined()) continue;
    Tensor target = std::move(op.lazy_target);
    op.lazy_target = Tensor();
    const Tensor& values = op.original.defined() ? op.original : op.tensor;
    if (target.sizes() == values.sizes()) {
      write_back_keeping_geometry(target, values);
    } else {
      // An empty out= view was resized: it takes the result's memory, which
      // holds plain values.
      target.impl()->set_storage(values.storage());
      target.impl()->set_geometry(values.sizes(), values.strides(), values.storage_offset());
      target.impl()->set_conj(false);
      target.impl()->set_neg(false);
    }
    op.tensor = target;
  }
}

TensorIterator::~TensorIterator() {
  try {
    write_back_lazy_outputs();
  } catch (...) {
    // Only reached when an error is already propagating; the write-back is lost.
  }
}

void TensorIterator::compute_shape() {
  bool first = true;
  // In-place and copy_: the written tensor takes part in broadcasting, so a
  // smaller source broadcasts to it (a larger one is an error below).
  if (inplace_)
    for (const auto& op : operands_)
      if (op.is_output && op.tensor.defined()) {
        shape_ = DimVector(op.tensor.sizes());
        first = false;
        break;
      }
  for (const auto& op : operands_) {
    // In-place writes (and copy_) broadcast the inputs to the written tensor,
    // so it takes part; other outputs just receive the inputs' shape.
    if (op.is_output && !(inplace_ && op.tensor.defined())) continue;
    if (first) {
      shape_ = DimVector(op.tensor.sizes());
      first = false;
    } else {
      shape_ = infer_broadcast_size(shape_, op.tensor.sizes(), op_name_);
    }
  }
  if (first) {
    // No inputs (fill_): iterate over the output as it is.
    for (const auto& op : operands_)
      if (op.is_output && op.tensor.defined()) {
        shape_ = DimVector(op.tensor.sizes());
        break;
      }
  }
  for (auto& op : operands_) {
    if (!op.is_output) continue;
    if (!op.tensor.defined()) {
      op.will_allocate = true;
      continue;
    }
    if (op.tensor.sizes() == shape_.ref()) continue;
    EMBER_CHECK(!inplace_, op_name_, ": output with shape ", op.tensor.sizes(),
                " doesn't match the broadcast shape ", shape_);
    EMBER_CHECK(op.tensor.numel() == 0, op_name_, ": out= tensor has shape ", op.tensor.sizes(),
                " but the result has shape ", shape_,
                " (only an empty out= tensor is resized)");
    op.original = op.tensor;
    op.will_allocate = true;
  }
  // Broadcasting two valid (expanded) operands can give more elements than
  // int64 counts (Note [Checked sizes]).
  numel_ = checked_numel(shape_, op_name_);
}

void TensorIterator::compute_types() {
  std::vector<Tensor> inputs;
  for (const auto& op : operands_)
    if (!op.is_output) inputs.push_back(op.tensor);
  if (same_dtype_) {
    for (const auto& t : inputs)
      EMBER_CHECK(t.dtype() == inputs[0].dtype(), op_name_,
                  ": expected all inputs to have the same dtype, got ", inputs[0].dtype(), " and ",
                  t.dtype());
  }
  if (inputs.empty()) {
    common_dtype_ = default_dtype();
    for (const auto& op : operands_)
      if (op.is_output && op.tensor.defined()) {
        common_dtype_ = op.tensor.dtype();
        break;
      }
  } else {
    common_dtype_ = promote_ ? result_type(inputs) : inputs[0].dtype();
  }
  if (int_to_float_ && is_integral(common_dtype_, true)) common_dtype_ = default_dtype();
  if (forced_compute_dtype_) common_dtype_ = *forced_compute_dtype_;
  if (promote_ || forced_compute_dtype_) {
    for (auto& op : operands_) {
      if (op.is_output || op.tensor.dtype() == common_dtype_) continue;
      op.tensor = op.tensor.to(common_dtype_);
      op.dtype = common_dtype_;
    }
  }
  const DType out_dtype = forced_output_dtype_.value_or(common_dtype_);
  for (auto& op : operands_) {
    if (!op.is_output) continue;
    if (!promote_ && !forced_output_dtype_ && !op.will_allocate) {
      // No promotion (copy_): a given output keeps its dtype; the kernel converts.
      op.dtype = op.tensor.dtype();
      continue;
    }
    op.dtype = out_dtype;
    if (op.will_allocate || op.tensor.dtype() == out_dtype) continue;
    // out= tensor of another dtype: compute into a temporary, copy back in finish().
    EMBER_CHECK(can_cast(out_dtype, op.tensor.dtype()), op_name_, ": result type ", out_dtype,
                " can't be cast to the desired output type ", op.tensor.dtype());
    op.original = op.tensor;
    op.tensor = empty_like(op.tensor, out_dtype);
  }
}

// Orders iteration dims from fastest to slowest by the operands' strides, so
// that transposed and channels-last inputs are walked in memory order and
// outputs we allocate inherit their layout (PyTorch's reorder_dimensions).
void TensorIterator::reorder_dimensions() {
  const int nd = static_cast<int>(shape_.size());
  perm_.resize(nd);
  for (int i = 0; i < nd; ++i) perm_[i] = nd - 1 - i;
  auto stride_of = [&](const Operand& op, int64_t dim) -> int64_t {
    // Broadcast dims have stride 0 in the iteration.
    const int64_t offset = nd - op.tensor.dim();
    if (dim < offset) return 0;
    return op.tensor.size(dim - offset) == 1 ? 0 : op.tensor.stride(dim - offset);
  };
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const auto& op : operands_) {
      if (op.will_allocate) continue;
      int64_t s0 = stride_of(op, d0), s1 = stride_of(op, d1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape_[d0] > shape_[d1]) return 1;
    }
    return 0;
  };
  for (int i = 1; i < nd; ++i) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm_[d0], perm_[d1]);
      if (c > 0) {
        std::swap(perm_[d0], perm_[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
}

void TensorIterator::allocate_outputs() {
  const int nd = static_cast<int>(shape_.size());
  for (auto& op : operands_) {
    if (!op.will_allocate) continue;
    // Dense strides in iteration order: perm_[0] is the fastest dim.
    DimVector strides(nd);
    int64_t s = 1;
    for (int i = 0; i < nd; ++i) {
      strides[perm_[i]] = s;
      // Only an empty output's strides can overflow (its other sizes multiply past int64).
      EMBER_CHECK(i + 1 == nd || !mul_overflows(s, std::max<int64_t>(shape_[perm_[i]], 1), &s), op_name_,
                  ": the strides of an output of sizes=", shape_, " overflow int64");
    }
    op.tensor = empty_strided_for(op_name_, shape_, strides, TensorOptions(op.dtype).device(device_));
  }
}

void TensorIterator::compute_strides() {
  const int nd = static_cast<int>(shape_.size());
  for (auto& op : operands_) {
    const int64_t offset = nd - op.tensor.dim();
    const int64_t es = static_cast<int64_t>(element_size(op.tensor.dtype()));
    op.stride_bytes.resize(nd);
    for (int i = 0; i < nd; ++i) {
      const int64_t d = perm_[i];
      // Byte strides of non-empty tensors fit in int64 (Note [Checked sizes]);
      // an empty operand makes the iteration empty, so its strides never step.
      if (d < offset || op.tensor.size(d - offset) == 1 ||
          mul_overflows(op.tensor.stride(d - offset), es, &op.stride_bytes[i]))
        op.stride_bytes[i] = 0;
    }
  }
  DimVector permuted(nd);
  for (int i = 0; i < nd; ++i) permuted[i] = shape_[perm_[i]];
  shape_ = permuted;
}

void TensorIterator::coalesce_dimensions() {
  if (shape_.size() <= 1) return;
  // Merged sizes and strides are checked: they only overflow where a dim is
  // empty (or an extent near 2^63 bytes), and those dims stay apart.
  auto can_merge = [&](size_t d0, size_t d1) {
    int64_t merged, step;
    if (mul_overflows(shape_[d0], shape_[d1], &merged)) return false;
    if (shape_[d0] == 1 || shape_[d1] == 1) return true;
    for (const auto& op : operands_)
      if (mul_overflows(op.stride_bytes[d0], shape_[d0], &step) || step != op.stride_bytes[d1]) return false;
    return true;
  };
  size_t prev = 0;
  for (size_t d = 1; d < shape_.size(); ++d) {
    if (can_merge(prev, d)) {
      if (shape_[prev] == 1)
        for (auto& op : operands_) op.stride_bytes[prev] = op.stride_bytes[d];
      shape_[prev] *= shape_[d];
    } else {
      ++prev;
      if (prev != d) {
        shape_[prev] = shape_[d];
        for (auto& op : operands_) op.stride_bytes[prev] = op.stride_bytes[d];
      }
    }
  }
  shape_.resize(prev + 1);
  for (auto& op : operands_) op.stride_bytes.resize(prev + 1);
  has_coalesced_ = true;
}

bool TensorIterator::is_scalar(int arg) const {
  for (int64_t s : operands_[arg].stride_bytes)
    if (s != 0) return false;
  return true;
}

bool TensorIterator::is_contiguous() const {
  if (numel_ == 1) return true;
  if (shape_.size() != 1) return false;
  for (const auto& op : operands_)
    if (op.stride_bytes[0] != static_cast<int64_t>(element_size(op.dtype))) return false;
  return true;
}

void TensorIterator::serial_for_each(const Loop& loop, int64_t begin, int64_t end) const {
  if (begin >= end) return;
  const int nt = ntensors();
  char* ptrs[kMaxOperands];
  int64_t inner_strides[kMaxOperands];
  for (int a = 0; a < nt; ++a) inner_strides[a] = ndim() ? operands_[a].stride_bytes[0] : 0;
  if (ndim() <= 1) {
    for (int a = 0; a < nt; ++a) ptrs[a] = operands_[a].data + begin * inner_strides[a];
    loop(ptrs, inner_strides, end - begin);
    return;
  }
  // Multi-index of `begin`, innermost first.
  const int nd = ndim();
  DimVector idx(nd);
  int64_t rem = begin;
  for (int d = 0; d < nd; ++d) {
    idx[d] = rem % shape_[d];
    rem /= shape_[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    for (int a = 0; a < nt; ++a) {
      char* p = operands_[a].data;
      for (int d = 0; d < nd; ++d) p += idx[d] * operands_[a].stride_bytes[d];
      ptrs[a] = p;
    }
    const int64_t n = std::min(shape_[0] - idx[0], end - pos);
    loop(ptrs, inner_strides, n);
    pos += n;
    idx[0] += n;
    for (int d = 0; d < nd - 1 && idx[d] >= shape_[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

void TensorIterator::for_each(const Loop& loop, int64_t grain_size) {
  if (numel_ == 0) return;
  parallel_for(0, numel_, grain_size,
               [&](int64_t b, int64_t e) { serial_for_each(loop, b, e); });
}

void TensorIterator::finish() {
  for (auto& op : operands_) {
    if (!op.is_output || !op.original.defined()) continue;
    if (op.original.sizes() != op.tensor.sizes()) {
      // An empty out= tensor takes the result's geometry and storage.
      Tensor src = op.original.dtype() == op.tensor.dtype() ? op.tensor
                                                             : op.tensor.to(op.original.dtype());
      op.original.impl()->set_storage(src.storage());
      op.original.impl()->set_geometry(src.sizes(), src.strides(), src.storage_offset());
    } else {
      op.original.copy_(op.tensor);
    }
    op.tensor = op.original;
    op.original = Tensor();
  }
  write_back_lazy_outputs();
}

Tensor TensorIterator::output(int i) const {
  const auto& op = operands_[i];
  if (op.lazy_target.defined()) return op.lazy_target;
  return op.original.defined() ? op.original : op.tensor;
}

}  // namespace ember
