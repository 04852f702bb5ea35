// masked_select, masked_scatter, nonzero / argwhere / where(cond). Their
// outputs depend on the data: kernels count per chunk, then fill (two passes).
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "kernels/slots/indexing_kernels.h"
#include "ops/indexing_utils.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_SLOT(masked_select_slot, MaskedSelectFn, "masked_select");
EMBER_DEFINE_SLOT(nonzero_slot, NonzeroFn, "nonzero");
EMBER_DEFINE_SLOT(masked_scatter_slot, MaskedScatterFn, "masked_scatter_");

namespace {
// Bool masks; uint8 masks are accepted as PyTorch 1.x did (non-zero = true).
Tensor bool_mask(const Tensor& mask, const char* op) {
  EMBER_CHECK(mask.defined(), op, ": got an undefined mask");
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, op,
              ": expected a bool (or uint8) mask, got ", mask.dtype());
  return mask.dtype() == kBool ? mask : ne(mask, 0);
}
}  // namespace

namespace {
Tensor masked_select_impl(const Tensor& self, const Tensor& m) {
  EMBER_CHECK(m.device() == self.device(), "masked_select: mask on ", m.device(),
              " and self on ", self.device(), " must be on one device");
  const DimVector shape = infer_broadcast_size(self.sizes(), m.sizes(), "masked_select");
  return masked_select_slot(self.device())(self.expand(shape).contiguous(), m.expand(shape).contiguous());
}
}  // namespace

// The gradient is scattered back to the selected positions (then reduced to
// self's shape when the mask broadcast it).
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(self.defined(), "masked_select: got an undefined tensor");
  const Tensor m = bool_mask(mask, "masked_select");
  autograd::OpRecorder rec("masked_select", {self});
  Tensor out = unview(masked_select_impl(self, m));
  if (rec)
    rec.record(out, [shape = infer_broadcast_size(self.sizes(), m.sizes(), "masked_select"),
                     saved = rec.save(m)](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return autograd::variable_list{ember::masked_scatter(zeros(shape, g.options()), c.unpack(saved), g)};
    });
  return out;
}
Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(self.defined(), "masked_select: got an undefined tensor");
  autograd::check_out_arguments("masked_select", out, {self});
  return assign_result(out, masked_select_impl(self, bool_mask(mask, "masked_select")), "masked_select_out");
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }

namespace {
Tensor& masked_scatter_impl(Tensor& self, const Tensor& mask, const Tensor& source, const char* op);
}

Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(defined() && source.defined(), "masked_scatter_: got an undefined tensor");
  if (autograd::inplace_records(*this, {source})) {
    const DimVector shape = infer_broadcast_size(sizes(), bool_mask(mask, "masked_scatter_").sizes(), "masked_scatter_");
    EMBER_CHECK(shape.ref() == sizes(), "masked_scatter_: mask of shape ", mask.sizes(),
                " is not broadcastable to self of shape ", sizes());
    return autograd::assign_inplace(*this, ember::masked_scatter(*this, mask, source), "masked_scatter_");
  }
  return masked_scatter_impl(*this, mask, source, "masked_scatter_");
}

namespace {
Tensor& masked_scatter_impl(Tensor& self, const Tensor& mask, const Tensor& source, const char* op) {
  EMBER_CHECK(self.defined() && source.defined(), op, ": got an undefined tensor");
  const Tensor m = bool_mask(mask, op);
  EMBER_CHECK(source.dtype() == self.dtype(), op, ": expected self and source to have same dtypes but got ",
              self.dtype(), " and ", source.dtype());
  const DimVector shape = infer_broadcast_size(self.sizes(), m.sizes(), op);
  EMBER_CHECK(shape.ref() == self.sizes(), op, ": mask of shape ", m.sizes(),
              " is not broadcastable to self of shape ", self.sizes());
  EMBER_CHECK(!has_internal_overlap(self), op,
              ": unsupported operation: some elements of the written-to tensor (sizes ", self.sizes(),
              ", strides ", self.strides(), ") refer to a single memory location; clone() it first");
  Tensor src = source.storage() == self.storage() ? source.clone() : source;
  src = src.contiguous().reshape({-1});
  const Tensor mm = m.expand(self.sizes()).contiguous();
  if (self.is_contiguous()) {
    masked_scatter_slot(self.device())(self, mm, src);
    self.bump_version();
  } else {
    Tensor tmp = self.contiguous();
    masked_scatter_slot(self.device())(tmp, mm, src);
    self.copy_(tmp);
  }
  return self;
}
}  // namespace

// self's gradient is zero where the mask is set; source's gradient is grad at
// the set positions, in order, padded with zeros to source's size.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(self.defined() && source.defined(), "masked_scatter: got an undefined tensor");
  const Tensor m = bool_mask(mask, "masked_scatter");
  const DimVector shape = infer_broadcast_size(self.sizes(), m.sizes(), "masked_scatter");
  autograd::OpRecorder rec("masked_scatter", {self, source});
  Tensor out = self.expand(shape).clone(MemoryFormat::Contiguous);
  masked_scatter_impl(out, m, source, "masked_scatter");
  if (rec)
    rec.record(out, [saved = rec.save(m), source_sizes = DimVector(source.sizes())](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const Tensor mask = c.unpack(saved);
      Tensor grad_self, grad_source;
      if (c.needs(0)) grad_self = g.masked_fill(mask, Scalar(0));
      if (c.needs(1)) {
        Tensor selected = g.masked_select(mask);
        grad_source = zeros({numel_of(source_sizes)}, g.options());
        grad_source.narrow(0, 0, selected.numel()).copy_(selected);
        grad_source = grad_source.view(source_sizes);
      }
      return autograd::variable_list{grad_self, grad_source};
    });
  return out;
}
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}

Tensor nonzero(const Tensor& self) {
  EMBER_CHECK(self.defined(), "nonzero: got an undefined tensor");
  return nonzero_slot(self.device())(self.contiguous());
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
