// einsum and tensordot, reduced to diagonal/permute/reshape views, sums and
// bmm/mm (as PyTorch does): no kernels of their own, and no backward formulas
// either: every step is a recorded op, so gradients (and double backward)
// flow through the composition.
#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ops/op_utils.h"

namespace ember {

namespace {

// Labels are coded so that sorting by code gives PyTorch's implicit output
// order: 'A'-'Z' -> 0-25, 'a'-'z' -> 26-51.
constexpr int kNumLabels = 52;
constexpr int kEllipsis = kNumLabels;

int label_code(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char label_char(int code) { return code < 26 ? static_cast<char>('A' + code) : static_cast<char>('a' + code - 26); }

// Parses one side of the equation ("ij...k"); `start` is its offset in the
// equation, for error messages.
std::vector<int> parse_subscripts(std::string_view s, size_t start, std::string_view equation) {
  std::vector<int> labels;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(s.substr(i, 3) == "...", "einsum(): found '.' at index ", start + i, " of \"",
                  equation, "\" that is not part of an ellipsis (\"...\")");
      EMBER_CHECK(!seen_ellipsis, "einsum(): found more than one ellipsis (\"...\") in one subscript of \"",
                  equation, "\"");
      seen_ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    EMBER_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), "einsum(): invalid subscript '", c,
                "' at index ", start + i, " of \"", equation, "\"; subscripts must be in [a-zA-Z]");
    labels.push_back(label_code(c));
  }
  return labels;
}

// t.diagonal(0, d1, d2), recorded here so that einsum's repeated labels ('ii->i')
// differentiate whether or not the view op records itself.
Tensor recorded_diagonal(const Tensor& t, int64_t d1, int64_t d2) {
  autograd::OpRecorder rec("diagonal", {t});
  Tensor v = t.diagonal(0, d1, d2);
  if (rec)
    rec.record(v, [sizes = DimVector(t.sizes()), d1, d2](autograd::BackwardContext& c) {
      Tensor r = zeros(sizes, c.grads[0].options());
      r.diagonal(0, d1, d2).copy_(c.grads[0]);
      return autograd::variable_list{r};
    });
  return v;
}

// The sum over the dims flagged in `sum_dims` of left * right (both with the
// same number of dims, broadcasting size-1 dims), keeping summed dims as size
// 1. Contracted dims become one bmm: [lro, lo, sum] x [lro, sum, ro].
Tensor sumproduct_pair(Tensor left, Tensor right, const std::vector<bool>& sum_dims) {
  // Nothing to sum: a broadcasting product, as PyTorch's sumproduct_pair
  // (which is also why einsum then takes bool operands, which bmm rejects).
  if (std::none_of(sum_dims.begin(), sum_dims.end(), [](bool b) { return b; })) return mul(left, right);
  const int64_t nd = left.dim();
  std::vector<int64_t> lro, lo, ro, sum_list, rest;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const bool sl = left.size(d) != 1, sr = right.size(d) != 1;
    if (sum_dims[d]) {
      if (sl && sr) {
        sum_list.push_back(d);
        sum_size *= left.size(d);
        continue;
      }
      // A dim only one side has is summed there (integers and bool to int64,
      // as PyTorch's sum).
      if (sl) left = left.sum(IntArrayRef(d), true);
      else if (sr) right = right.sum(IntArrayRef(d), true);
      rest.push_back(d);
    } else if (sl && sr) {
      lro.push_back(d);
      lro_size *= left.size(d);
    } else if (sl) {
      lo.push_back(d);
      lo_size *= left.size(d);
    } else if (sr) {
      ro.push_back(d);
      ro_size *= right.size(d);
    } else {
      rest.push_back(d);
    }
  }
  // Every contracted dim had size 1 on one side: a product, no bmm (so bool
  // operands work, as in PyTorch, whose einsum leaves such dims to mul).
  if (sum_list.empty()) return mul(left, right);
  auto concat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> v;
    for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
    return v;
  };
  // Dims outside a group have size 1 in that operand, so the reshapes only
  // merge the groups.
  const Tensor l3 = left.permute(concat({&lro, &lo, &sum_list, &ro, &rest}))
                        .reshape({lro_size, lo_size, sum_size});
  const Tensor r3 = right.permute(concat({&lro, &sum_list, &ro, &lo, &rest}))
                        .reshape({lro_size, sum_size, ro_size});
  Tensor result = bmm(l3, r3);
  // Back to nd dims: [lro, lo, ro, sum_list + rest as size 1], then unpermute.
  const std::vector<int64_t> order = concat({&lro, &lo, &ro, &sum_list, &rest});
  DimVector sizes;
  for (int64_t d : order) {
    const bool in_left = std::find(lo.begin(), lo.end(), d) != lo.end() ||
                         std::find(lro.begin(), lro.end(), d) != lro.end();
    const bool in_right = std::find(ro.begin(), ro.end(), d) != ro.end();
    sizes.push_back(in_left ? left.size(d) : in_right ? right.size(d) : 1);
  }
  std::vector<int64_t> inverse(nd);
  for (int64_t i = 0; i < nd; ++i) inverse[order[i]] = i;
  return result.reshape(sizes).permute(inverse);
}

}  // namespace

Tensor einsum(std::string_view equation, ArrayRef<Tensor> tensors) {
  EMBER_CHECK(!tensors.empty(), "einsum(): must provide at least one operand");
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.defined(), "einsum(): got an undefined operand");
    EMBER_CHECK(t.dtype() == tensors[0].dtype(), "einsum(): expected all operands to have the same dtype, but got ",
                tensors[0].dtype(), " and ", t.dtype());
    EMBER_CHECK(t.device() == tensors[0].device(), "einsum(): expected all operands on one device, but got ",
                tensors[0].device(), " and ", t.device());
  }

  // ---- parse ----
  const size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> op_labels;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    const size_t end = comma == std::string_view::npos ? lhs.size() : comma;
    op_labels.push_back(parse_subscripts(lhs.substr(start, end - start), start, equation));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  const int64_t nops = static_cast<int64_t>(tensors.size());
  EMBER_CHECK(static_cast<int64_t>(op_labels.size()) == nops, "einsum(): ", nops,
              " operands were provided but the equation \"", equation, "\" specifies ",
              op_labels.size());

  // ---- ellipsis extents and label counts ----
  std::vector<int64_t> ell_dims(nops, 0);
  int64_t max_ell = 0;
  std::array<int, kNumLabels> count{};
  for (int64_t i = 0; i < nops; ++i) {
    const auto& labels = op_labels[i];
    const bool has_ell = std::find(labels.begin(), labels.end(), kEllipsis) != labels.end();
    const int64_t nlabels = static_cast<int64_t>(labels.size()) - (has_ell ? 1 : 0);
    const int64_t ndim = tensors[i].dim();
    if (has_ell) {
      EMBER_CHECK(nlabels <= ndim, "einsum(): the number of subscripts in the equation (", nlabels,
                  ") is more than the number of dimensions (", ndim, ") for operand ", i);
      ell_dims[i] = ndim - nlabels;
      max_ell = std::max(max_ell, ell_dims[i]);
    } else {
      EMBER_CHECK(nlabels == ndim, "einsum(): the number of subscripts in the equation (", nlabels,
                  ") does not match the number of dimensions (", ndim, ") for operand ", i,
                  " and no ellipsis was given");
    }
    for (int l : labels)
      if (l != kEllipsis) ++count[l];
  }

  // ---- output: explicit, or implicit (ellipsis, then labels seen once) ----
  std::vector<int> out_labels;
  if (arrow != std::string_view::npos) {
    const std::string_view rhs = equation.substr(arrow + 2);
    out_labels = parse_subscripts(rhs, arrow + 2, equation);
    std::array<bool, kNumLabels> seen{};
    for (int l : out_labels) {
      if (l == kEllipsis) continue;
      EMBER_CHECK(count[l] > 0, "einsum(): output subscript ", label_char(l),
                  " does not appear in the equation for any input operand");
      EMBER_CHECK(!seen[l], "einsum(): output subscript ", label_char(l),
                  " appears more than once in the output");
      seen[l] = true;
    }
  } else {
    out_labels.push_back(kEllipsis);
    for (int l = 0; l < kNumLabels; ++l)
      if (count[l] == 1) out_labels.push_back(l);
  }

  // ---- global dim order: output dims first, then contracted ones ----
  // Ellipsis dims absent from an explicit output are contracted.
  std::array<int64_t, kNumLabels> label_pos;
  label_pos.fill(-1);
  std::vector<int64_t> ell_pos(max_ell, -1);
  int64_t pos = 0;
  for (int l : out_labels) {
    if (l == kEllipsis)
      for (int64_t j = 0; j < max_ell; ++j) ell_pos[j] = pos++;
    else
      label_pos[l] = pos++;
  }
  const int64_t out_ndim = pos;
  for (int64_t j = 0; j < max_ell; ++j)
    if (ell_pos[j] < 0) ell_pos[j] = pos++;
  for (int l = 0; l < kNumLabels; ++l)
    if (count[l] > 0 && label_pos[l] < 0) label_pos[l] = pos++;
  const int64_t total = pos;

  // ---- each operand: diagonals for repeated labels, then align to the global order ----
  std::vector<Tensor> ops;
  DimVector extent(total, 1);  // broadcast size of each global dim
  for (int64_t i = 0; i < nops; ++i) {
    Tensor t = tensors[i];
    std::vector<int64_t> ids;  // global position of each dim of t
    for (int l : op_labels[i]) {
      if (l == kEllipsis)
        for (int64_t j = 0; j < ell_dims[i]; ++j) ids.push_back(ell_pos[max_ell - ell_dims[i] + j]);
      else
        ids.push_back(label_pos[l]);
    }
    for (bool repeated = true; repeated;) {
      repeated = false;
      for (size_t d1 = 0; d1 < ids.size() && !repeated; ++d1)
        for (size_t d2 = d1 + 1; d2 < ids.size() && !repeated; ++d2) {
          if (ids[d1] != ids[d2]) continue;
          EMBER_CHECK(t.size(d1) == t.size(d2), "einsum(): a subscript is repeated for operand ", i,
                      " but the sizes don't match, ", t.size(d1), " != ", t.size(d2));
          t = recorded_diagonal(t, static_cast<int64_t>(d1), static_cast<int64_t>(d2));
          const int64_t id = ids[d1];
          ids.erase(ids.begin() + d2);
          ids.erase(ids.begin() + d1);
          ids.push_back(id);
          repeated = true;
        }
    }
    for (size_t d = 0; d < ids.size(); ++d) {
      const int64_t s = t.size(d), g = ids[d];
      EMBER_CHECK(s == extent[g] || s == 1 || extent[g] == 1, "einsum(): operand ", i,
                  " has size ", s, " for a subscript that previous operands have with size ", extent[g],
                  " (sizes must match or be 1)");
      if (s != 1) extent[g] = s;
    }
    // Align: dims in global order (permute), size-1 dims where t has none
    // (unsqueeze); recorded views, so gradients flow back.
    std::vector<int64_t> order(ids.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return ids[x] < ids[y]; });
    bool identity = true;
    for (size_t d = 0; d < order.size(); ++d) identity = identity && order[d] == static_cast<int64_t>(d);
    if (!identity) t = t.permute(order);
    std::vector<bool> present(total, false);
    for (int64_t g : ids) present[g] = true;
    for (int64_t g = 0; g < total; ++g)
      if (!present[g]) t = t.unsqueeze(g);
    ops.push_back(t);
  }

  // ---- contract ----
  std::vector<bool> contracted(total, false);
  for (int64_t g = out_ndim; g < total; ++g) contracted[g] = true;
  // A contracted dim can be summed once no later operand still has it.
  auto needed_after = [&](int64_t g, int64_t i) {
    for (int64_t j = i + 1; j < nops; ++j)
      if (ops[j].size(g) != 1) return true;
    return false;
  };
  Tensor result = ops[0];
  if (nops == 1) {
    std::vector<int64_t> dims;
    for (int64_t g = out_ndim; g < total; ++g)
      if (result.size(g) != 1) dims.push_back(g);
    if (!dims.empty()) result = result.sum(dims, true, result.dtype());
  } else {
    for (int64_t i = 1; i < nops; ++i) {
      std::vector<bool> sum_dims(total, false);
      for (int64_t g = out_ndim; g < total; ++g) sum_dims[g] = !needed_after(g, i);
      result = sumproduct_pair(result, ops[i], sum_dims);
    }
  }
  DimVector out_sizes;
  for (int64_t g = 0; g < out_ndim; ++g) out_sizes.push_back(result.size(g));
  return result.reshape(out_sizes);
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_CHECK(a.defined() && b.defined(), "tensordot: got an undefined tensor");
  EMBER_CHECK(a.dtype() == b.dtype(), "tensordot: expected both operands to have the same dtype, but got ",
              a.dtype(), " and ", b.dtype());
  EMBER_CHECK(dims_a.size() == dims_b.size(), "tensordot: both dimension lists should have the same length, but got ",
              dims_a.size(), " and ", dims_b.size());
  const uint64_t mask_a = dims_a.empty() ? 0 : dims_to_mask(dims_a, a.dim(), "tensordot");
  const uint64_t mask_b = dims_b.empty() ? 0 : dims_to_mask(dims_b, b.dim(), "tensordot");
  std::vector<int64_t> perm_a, perm_b;
  DimVector out_sizes;
  int64_t free_a = 1, free_b = 1, contracted = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (!(mask_a >> d & 1)) {
      perm_a.push_back(d);
      out_sizes.push_back(a.size(d));
      free_a *= a.size(d);
    }
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t da = wrap_dim(dims_a[i], a.dim(), "tensordot");
    const int64_t db = wrap_dim(dims_b[i], b.dim(), "tensordot");
    EMBER_CHECK(a.size(da) == b.size(db), "tensordot: contracted dimensions need to match, but first has size ",
                a.size(da), " in dim ", da, " and second has size ", b.size(db), " in dim ", db);
    perm_a.push_back(da);
    perm_b.push_back(db);
    contracted *= a.size(da);
  }
  for (int64_t d = 0; d < b.dim(); ++d)
    if (!(mask_b >> d & 1)) {
      perm_b.push_back(d);
      out_sizes.push_back(b.size(d));
      free_b *= b.size(d);
    }
  const Tensor a2 = a.permute(perm_a).reshape({free_a, contracted});
  const Tensor b2 = b.permute(perm_b).reshape({contracted, free_b});
  return mm(a2, b2).view(out_sizes);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  EMBER_CHECK(a.defined() && b.defined(), "tensordot: got an undefined tensor");
  EMBER_CHECK(dims >= 0, "tensordot: expects dims >= 0, but got ", dims);
  EMBER_CHECK(dims <= a.dim() && dims <= b.dim(), "tensordot: expects dims <= min(a.dim(), b.dim()) = ",
              std::min(a.dim(), b.dim()), ", but got ", dims);
  std::vector<int64_t> dims_a(dims), dims_b(dims);
  std::iota(dims_a.begin(), dims_a.end(), a.dim() - dims);
  std::iota(dims_b.begin(), dims_b.end(), int64_t{0});
  return tensordot(a, b, dims_a, dims_b);
}

}  // namespace ember
