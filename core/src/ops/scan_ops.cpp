// Scans along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp. The op
// converts the input to the result dtype and makes it contiguous; kernels in
// kernels/cpu/scan_kernels.cpp compute on contiguous data.
#include "ember/ops/factories.h"
#include "ember/ops/scan.h"
#include "ops/op_utils.h"
#include "ops/out_resize.h"
#include "ops/scan_kernels.h"

namespace ember {

EMBER_DEFINE_STUB(scan_stub, ScanFn, "scan");
EMBER_DEFINE_STUB(cum_min_max_stub, CumMinMaxFn, "cum_min_max");

namespace {

DType scan_dtype(const Tensor& self, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

// Scans `self` (converted to `dtype`) into `out`, which has self's shape.
void run_scan(const Tensor& self, Tensor& out, int64_t dim, DType dtype, ScanOp op) {
  if (self.numel() == 0) return;
  const Tensor in = self.to(dtype).contiguous();
  if (out.is_contiguous()) {
    scan_stub(self.device())(in, out, dim, op);
  } else {
    Tensor tmp = empty(self.sizes(), TensorOptions(dtype).device(self.device()));
    scan_stub(self.device())(in, tmp, dim, op);
    out.copy_(tmp);
  }
}

Tensor scan(const Tensor& self, int64_t dim, DType dtype, ScanOp op, const char* name) {
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  const int64_t d = wrap_dim(dim, self.dim(), name);
  Tensor out = empty(self.sizes(), TensorOptions(dtype).device(self.device()));
  run_scan(self, out, d, dtype, op);
  return out;
}

Tensor& scan_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype, ScanOp op,
                 const char* name) {
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  const int64_t d = wrap_dim(dim, self.dim(), name);
  EMBER_CHECK(!dtype || *dtype == out.dtype(), name, ": Expected out tensor to have dtype ", *dtype,
              ", but got ", out.dtype(), " instead");
  resize_out(out, self.sizes(), name);
  run_scan(self, out, d, out.dtype(), op);
  return out;
}

std::pair<Tensor, Tensor> cum_min_max(const Tensor& self, int64_t dim, bool is_max) {
  const char* name = is_max ? "cummax" : "cummin";
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  EMBER_CHECK(!self.is_complex(), name, ": complex inputs are not supported (got ", self.dtype(), ")");
  const int64_t d = wrap_dim(dim, self.dim(), name);
  Tensor values = empty(self.sizes(), self.options());
  Tensor indices = empty(self.sizes(), TensorOptions(kInt64).device(self.device()));
  if (self.numel() > 0) cum_min_max_stub(self.device())(self.contiguous(), values, indices, d, is_max);
  return {values, indices};
}

}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan(self, dim, scan_dtype(self, dtype), ScanOp::Sum, "cumsum");
}
Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan_out(out, self, dim, dtype, ScanOp::Sum, "cumsum");
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan(self, dim, scan_dtype(self, dtype), ScanOp::Prod, "cumprod");
}
Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan_out(out, self, dim, dtype, ScanOp::Prod, "cumprod");
}
std::pair<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return cum_min_max(self, dim, true); }
std::pair<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return cum_min_max(self, dim, false); }

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.defined(), "logcumsumexp: input tensor is undefined");
  EMBER_CHECK(self.is_floating_point(), "logcumsumexp: expected a floating point tensor, got ", self.dtype());
  return scan(self, dim, self.dtype(), ScanOp::LogSumExp, "logcumsumexp");
}

// ---- Tensor methods ----
Tensor Tensor::cumsum(int64_t dim, std::optional<DType> dtype) const { return ember::cumsum(*this, dim, dtype); }
Tensor Tensor::cumprod(int64_t dim, std::optional<DType> dtype) const { return ember::cumprod(*this, dim, dtype); }
Tensor& Tensor::cumsum_(int64_t dim, std::optional<DType> dtype) {
  return cumsum_out(*this, *this, dim, dtype.value_or(this->dtype()));
}
Tensor& Tensor::cumprod_(int64_t dim, std::optional<DType> dtype) {
  return cumprod_out(*this, *this, dim, dtype.value_or(this->dtype()));
}
std::pair<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::pair<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }

}  // namespace ember
