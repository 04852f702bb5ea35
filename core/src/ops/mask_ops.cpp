// masked_select, masked_scatter, nonzero / argwhere / where(cond). Their
// outputs depend on the data: kernels count per chunk, then fill (two passes).
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ops/indexing_kernels.h"
#include "ops/indexing_utils.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_STUB(masked_select_stub, MaskedSelectFn, "masked_select");
EMBER_DEFINE_STUB(nonzero_stub, NonzeroFn, "nonzero");
EMBER_DEFINE_STUB(masked_scatter_stub, MaskedScatterFn, "masked_scatter_");

namespace {
// Bool masks; uint8 masks are accepted as PyTorch 1.x did (non-zero = true).
Tensor bool_mask(const Tensor& mask, const char* op) {
  EMBER_CHECK(mask.defined(), op, ": got an undefined mask");
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, op,
              ": expected a bool (or uint8) mask, got ", mask.dtype());
  return mask.dtype() == kBool ? mask : ne(mask, 0);
}
}  // namespace

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(self.defined(), "masked_select: got an undefined tensor");
  const Tensor m = bool_mask(mask, "masked_select");
  EMBER_CHECK(m.device() == self.device(), "masked_select: mask on ", m.device(),
              " and self on ", self.device(), " must be on one device");
  const DimVector shape = infer_broadcast_size(self.sizes(), m.sizes(), "masked_select");
  return masked_select_stub(self.device())(self.expand(shape).contiguous(), m.expand(shape).contiguous());
}
Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask) {
  return assign_result(out, masked_select(self, mask), "masked_select_out");
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }

Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) {
  const char* op = "masked_scatter_";
  EMBER_CHECK(defined() && source.defined(), op, ": got an undefined tensor");
  const Tensor m = bool_mask(mask, op);
  EMBER_CHECK(source.dtype() == dtype(), op, ": expected self and source to have same dtypes but got ",
              dtype(), " and ", source.dtype());
  const DimVector shape = infer_broadcast_size(sizes(), m.sizes(), op);
  EMBER_CHECK(shape.ref() == sizes(), op, ": mask of shape ", m.sizes(),
              " is not broadcastable to self of shape ", sizes());
  EMBER_CHECK(!has_internal_overlap(*this), op,
              ": unsupported operation: some elements of the written-to tensor (sizes ", sizes(),
              ", strides ", strides(), ") refer to a single memory location; clone() it first");
  Tensor src = source.storage() == storage() ? source.clone() : source;
  src = src.contiguous().reshape({-1});
  const Tensor mm = m.expand(sizes()).contiguous();
  if (is_contiguous()) {
    masked_scatter_stub(device())(*this, mm, src);
    bump_version();
  } else {
    Tensor tmp = contiguous();
    masked_scatter_stub(device())(tmp, mm, src);
    copy_(tmp);
  }
  return *this;
}
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(self.defined(), "masked_scatter: got an undefined tensor");
  const Tensor m = bool_mask(mask, "masked_scatter");
  const DimVector shape = infer_broadcast_size(self.sizes(), m.sizes(), "masked_scatter");
  Tensor out = self.expand(shape).clone(MemoryFormat::Contiguous);
  return out.masked_scatter_(m, source);
}
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}

Tensor nonzero(const Tensor& self) {
  EMBER_CHECK(self.defined(), "nonzero: got an undefined tensor");
  return nonzero_stub(self.device())(self.contiguous());
}
Tensor argwhere(const Tensor& self) { return nonzero(self); }
std::vector<Tensor> nonzero_numpy(const Tensor& self) {
  EMBER_CHECK(self.defined(), "nonzero_numpy: got an undefined tensor");
  // A 0-d input behaves as 1-d, as torch.nonzero(as_tuple=True).
  return nonzero(self.dim() == 0 ? self.unsqueeze(0) : self).unbind(1);
}
std::vector<Tensor> where(const Tensor& condition) { return nonzero_numpy(condition); }
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }
Tensor Tensor::argwhere() const { return ember::argwhere(*this); }
std::vector<Tensor> Tensor::nonzero_numpy() const { return ember::nonzero_numpy(*this); }

}  // namespace ember
