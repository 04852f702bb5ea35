// pad (torch.nn.functional.pad) and constant_pad_nd. Constant padding fills
// the output and copies the (possibly cropped) input into its middle; the
// other modes map each output index to an input index per dim and use the
// index-map kernel of the shape family.
#include <algorithm>

#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape.h"
#include "ops/op_utils.h"
#include "kernels/slots/shape_kernels.h"

namespace ember {

namespace {

void check_pad_length(const Tensor& self, IntArrayRef pad, const char* op) {
  EMBER_CHECK(self.defined(), op, ": input tensor is undefined");
  EMBER_CHECK(pad.size() % 2 == 0, op, ": Padding length must be divisible by 2, got ", pad.size(),
              " values ", pad);
  EMBER_CHECK(static_cast<int64_t>(pad.size()) <= 2 * self.dim(), op,
              ": Padding length too large: ", pad.size(), " values ", pad, " for an input of sizes ",
              self.sizes());
}

// Dim padded by pair i of `pad` (pairs start from the last dim).
int64_t padded_dim(const Tensor& self, size_t pair) { return self.dim() - 1 - static_cast<int64_t>(pair); }

enum class PadMode { Reflect, Replicate, Circular };

// Input index read by output index j of a dim of size n padded by (left, right).
int64_t source_index(PadMode mode, int64_t j, int64_t n, int64_t left, int64_t right) {
  switch (mode) {
    case PadMode::Reflect: {
      const int64_t p = j - left;
      return p < 0 ? -p : p >= n ? 2 * (n - 1) - p : p;
    }
    case PadMode::Replicate: {
      // A left pad far below -n can put j - left past int64: that is past the end.
      int64_t p;
      return __builtin_sub_overflow(j, left, &p) ? n - 1 : std::clamp<int64_t>(p, 0, n - 1);
    }
    case PadMode::Circular: {
      // Negative pads crop first; positive pads then wrap around the cropped range.
      const int64_t lo = std::max<int64_t>(-left, 0);
      const int64_t m = n - lo - std::max<int64_t>(-right, 0);
      const int64_t p = (j - std::max<int64_t>(left, 0)) % m;
      return lo + (p < 0 ? p + m : p);
    }
  }
  return 0;
}

Tensor pad_by_index(const Tensor& self, IntArrayRef pad, PadMode mode, const std::string& name) {
  const int64_t npad = static_cast<int64_t>(pad.size() / 2);
  EMBER_CHECK(npad >= 1 && npad <= 3 && (self.dim() == npad + 1 || self.dim() == npad + 2), "pad: mode '", name,
              "' pads the last 1 to 3 dims of a batched or unbatched input: padding ", npad,
              " dims needs a ", npad + 1, "-d or ", npad + 2, "-d input, got sizes ", self.sizes());
  DimVector shape(self.sizes());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = padded_dim(self, i);
    const int64_t n = self.size(d), left = pad[2 * i], right = pad[2 * i + 1];
    EMBER_CHECK(n > 0, "pad: mode '", name, "' needs non-empty padded dims, but dim ", d, " of input ",
                self.sizes(), " has size 0");
    if (mode == PadMode::Reflect)
      EMBER_CHECK(left < n && right < n, "pad: Padding size should be less than the corresponding input "
                  "dimension for mode 'reflect', but got: padding (", left, ", ", right, ") at dimension ", d,
                  " of input ", self.sizes());
    if (mode == PadMode::Circular)
      EMBER_CHECK(left <= n && right <= n, "pad: Padding value causes wrapping around more than once "
                  "for mode 'circular': padding (", left, ", ", right, ") at dimension ", d, " of input ",
                  self.sizes());
    // Sizes plus pads in 128 bits: pads near the int64 limits must not wrap
    // into a plausible size (Note [Checked sizes]).
    if (mode == PadMode::Circular)
      EMBER_CHECK(__int128(n) + std::min<int64_t>(left, 0) + std::min<int64_t>(right, 0) >= 1,
                  "pad: Negative padding value (", left, ", ", right, ") is resulting in an empty dimension ", d,
                  " of input ", self.sizes(), " for mode 'circular'");
    const __int128 out = __int128(n) + left + right;
    EMBER_CHECK(out >= 1, "pad: input size ", n, " of dim ", d, " (input ", self.sizes(), ") is too small for ",
                "padding (", left, ", ", right, "): calculated output size ", static_cast<double>(out));
    EMBER_CHECK(out <= INT64_MAX, "pad: input size ", n, " of dim ", d, " plus padding (", left, ", ", right,
                ") overflows int64");
    shape[d] = static_cast<int64_t>(out);
  }
  const char* op = mode == PadMode::Reflect     ? "reflection_pad"
                   : mode == PadMode::Replicate ? "replication_pad"
                                                : "circular_pad";
  autograd::OpRecorder rec(op, {self});
  // The output first, then its index maps (build_index_maps).
  Tensor result = empty_for(op, shape, self.options().memory_format(self.suggest_memory_format()));
  const auto maps = build_index_maps(op, [&] {
    std::vector<std::vector<int64_t>> m(static_cast<size_t>(self.dim()));
    for (int64_t d = 0; d < self.dim(); ++d) {
      m[d].resize(static_cast<size_t>(shape[d]));
      for (int64_t j = 0; j < shape[d]; ++j) m[d][j] = j;
    }
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const int64_t d = padded_dim(self, i);
      for (int64_t j = 0; j < shape[d]; ++j) m[d][j] = source_index(mode, j, self.size(d), pad[2 * i], pad[2 * i + 1]);
    }
    return m;
  });
  if (result.numel() > 0) remap_copy_slot(self.device())(self, result, maps);
  if (rec) {
    // Backward: each gradient element added to the input element it was read from.
    std::vector<Tensor> index_maps(static_cast<size_t>(self.dim()));
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const int64_t d = padded_dim(self, i);
      index_maps[d] = tensor(maps[d], kInt64);
    }
    rec.record(result, [index_maps, sizes = DimVector(self.sizes())](autograd::BackwardContext& c) {
      return autograd::variable_list{autograd::index_map_backward(c.grads[0], sizes, index_maps)};
    });
  }
  return result;
}

}  // namespace

namespace {
Tensor constant_pad_impl(const Tensor& self, IntArrayRef pad, const Scalar& value);
}

// Backward: the gradient cropped by the same pads negated (positive pads are
// cut off again, cropped borders come back as zeros).
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  check_pad_length(self, pad, "constant_pad_nd");
  autograd::OpRecorder rec("constant_pad_nd", {self});
  Tensor result = constant_pad_impl(self, pad, value);
  if (rec) {
    // A pad of INT64_MIN crops more than any dim holds: every input value was
    // cut off, so the gradient is zero (and -INT64_MIN is not an int64).
    const bool all_cropped = std::find(pad.begin(), pad.end(), INT64_MIN) != pad.end();
    DimVector back;
    for (int64_t p : pad) back.push_back(all_cropped ? 0 : -p);
    rec.record(result, [back, all_cropped, sizes = DimVector(self.sizes())](autograd::BackwardContext& c) {
      if (all_cropped) return autograd::variable_list{zeros(sizes, c.grads[0].options())};
      return autograd::variable_list{constant_pad_nd(c.grads[0], back, 0)};
    });
  }
  return result;
}

namespace {
Tensor constant_pad_impl(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  DimVector shape(self.sizes());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = padded_dim(self, i);
    // In 128 bits (Note [Checked sizes]): pads near the int64 limits must not wrap.
    const __int128 out = __int128(self.size(d)) + pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(out >= 0, "constant_pad_nd: The input size ", self.size(d), ", plus negative padding ",
                pad[2 * i], " and ", pad[2 * i + 1], " resulted in a negative output size, which is invalid. "
                "Check dimension ", d, " of your input (sizes ", self.sizes(), ").");
    EMBER_CHECK(out <= INT64_MAX, "constant_pad_nd: the input size ", self.size(d), " plus padding ", pad[2 * i],
                " and ", pad[2 * i + 1], " overflows int64 (dimension ", d, " of sizes ", self.sizes(), ")");
    shape[d] = static_cast<int64_t>(out);
  }
  Tensor result = empty_for("constant_pad_nd", shape, self.options().memory_format(self.suggest_memory_format()));
  if (result.numel() == 0) return result;
  // Without a positive pad the input covers the whole output: PyTorch then
  // never converts the value (a uint8 input padded by [] with -2.625 is fine).
  const bool fills = std::any_of(pad.begin(), pad.end(), [](int64_t p) { return p > 0; });
  if (fills) result.fill_(value);
  // Negative pads crop the input; positive pads leave a border in the output.
  Tensor src = self, dst = result;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = padded_dim(self, i);
    // Crops past the whole dim count as the whole dim (and -INT64_MIN is not an int64).
    const int64_t n = self.size(d);
    auto crop = [n](int64_t p) { return p >= 0 ? 0 : p < -n ? n : -p; };
    const int64_t crop_lo = crop(pad[2 * i]), crop_hi = crop(pad[2 * i + 1]);
    const int64_t len = n - crop_lo - crop_hi;
    if (len <= 0) return result;  // everything cropped away: only padding remains
    src = src.narrow(d, crop_lo, len);
    dst = dst.narrow(d, std::max<int64_t>(pad[2 * i], 0), len);
  }
  if (src.numel() > 0) dst.copy_(src);
  return result;
}
}  // namespace

Tensor pad(const Tensor& self, IntArrayRef pad, const std::string& mode, std::optional<double> value) {
  check_pad_length(self, pad, "pad");
  if (mode == "constant") return constant_pad_nd(self, pad, value.value_or(0.0));
  PadMode m;
  if (mode == "reflect") m = PadMode::Reflect;
  else if (mode == "replicate") m = PadMode::Replicate;
  else if (mode == "circular") m = PadMode::Circular;
  else EMBER_FAIL("pad: unrecognised padding mode '", mode, "' (expected constant, reflect, replicate or circular)");
  EMBER_CHECK(!value || *value == 0, "pad: Padding mode \"", mode, "\" doesn't take in value argument (got ",
              *value, ")");
  return pad_by_index(self, pad, m, mode);
}

}  // namespace ember
