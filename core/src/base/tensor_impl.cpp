#include "ember/core/tensor.h"

#include "autograd/autograd_meta.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/checked_size.h"

namespace ember {

TensorImpl::TensorImpl(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)), dtype_(dtype), is_inference_(is_inference_mode_enabled()) {
  set_geometry(sizes, strides, storage_offset);
}

TensorImpl::~TensorImpl() = default;

autograd::AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_meta_) autograd_meta_ = std::make_unique<autograd::AutogradMeta>();
  return *autograd_meta_;
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  // The backstop of Note [Checked sizes]: ops check the geometries they make
  // (naming themselves); this catches any that slipped through before a
  // kernel could address memory outside the storage.
  const int64_t numel = checked_numel(sizes, "tensor geometry");
  if (numel > 0) {
    const int64_t need = storage_nbytes(sizes, strides, storage_offset, element_size(dtype_), "tensor geometry");
    EMBER_CHECK(storage_ && static_cast<uint64_t>(need) <= storage_->nbytes(), "tensor geometry: sizes=", sizes,
                ", strides=", strides, " and storage offset ", storage_offset, " of ", dtype_, " need ", need,
                " bytes of storage but it holds ", storage_ ? storage_->nbytes() : 0);
  }
  sizes_ = sizes;
  strides_ = strides;
  storage_offset_ = storage_offset;
  numel_ = numel;
  refresh_contiguity();
}

void TensorImpl::refresh_contiguity() {
  is_contiguous_ = is_contiguous_as(sizes_, strides_, MemoryFormat::Contiguous);
}

size_t Tensor::nbytes() const {
  // Logical bytes: numel * itemsize, which overflows only for views repeating
  // elements (Note [Checked sizes]).
  return static_cast<size_t>(checked_nbytes(sizes(), element_size(), "nbytes"));
}

namespace detail {
void throw_data_ptr_mismatch(DType tensor, DType requested) {
  EMBER_FAIL("data_ptr: tensor has dtype ", tensor, " but data_ptr<", requested,
             "> was requested");
}
void throw_data_ptr_lazy_bits(bool conj) {
  EMBER_FAIL("data_ptr: the tensor is a ", conj ? "conjugate" : "negative",
             " view whose storage does not hold its values; an op read it without resolving it "
             "first (an Ember bug: see Note [Conjugate bit]). resolve_conj()/resolve_neg() works around it");
}
}  // namespace detail

}  // namespace ember
