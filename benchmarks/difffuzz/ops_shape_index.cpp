// Shape ops (cat/stack/flip/roll/transpose/permute/repeat/pad/views/splits)
// and indexing (gather/scatter/index_*/masks/take/advanced indexing).
#include "ops.h"

namespace difffuzz {

namespace {

int64_t rank_of(const Case& c, size_t i = 0) { return static_cast<int64_t>(c.tensors[i].sizes.size()); }

int64_t extent(const std::vector<int64_t>& s, int64_t d) {
  const int64_t r = static_cast<int64_t>(s.size());
  if (r == 0) return 1;
  return s[static_cast<size_t>(d < 0 ? d + r : d)];
}

c10::optional<int64_t> topt(const std::optional<int64_t>& v) {
  return v ? c10::optional<int64_t>(*v) : c10::nullopt;
}

// An int64 index tensor (contiguous) whose entries come from `value(flat)`.
template <class F>
TensorArg index_with(const std::vector<int64_t>& sizes, F value) {
  TensorArg t;
  t.dtype = DType::Int64;
  t.sizes = sizes;
  make_contiguous_layout(t);
  t.ints.resize(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) t.ints[static_cast<size_t>(i)] = value(i);
  return t;
}

// A single-input op: any dtype, any shape.
void gen_one(Gen& g, Case& c, int min_rank = 0) { c.tensors.push_back(g.tensor(g.any_dtype(), g.shape(min_rank))); }

// cat / stack: 1-4 tensors agreeing except (for cat) along dim.
void gen_join(Gen& g, Case& c, bool stack) {
  std::vector<int64_t> s = g.shape(stack ? 0 : 1);
  const int64_t rank = static_cast<int64_t>(s.size());
  const int64_t d = g.dim(stack ? rank + 1 : rank);
  c.p.dim = d;
  const DType t = g.any_dtype();
  const int64_t n = g.rng.range(1, 4);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> si = s;
    if (!stack && rank > 0) si[static_cast<size_t>(d < 0 ? d + rank : d)] = g.rng.range(0, 3);
    if (!stack && g.rng.chance(0.05)) si = {0};  // legacy: 1-d empty tensors are skipped
    c.tensors.push_back(g.tensor(g.rng.chance(0.7) ? t : g.any_dtype(), si));
  }
}

void add_shape(std::vector<OpDef>& ops) {
  ops.push_back({"cat", [](Gen& g, Case& c) { gen_join(g, c, false); },
                 DF_E { return {ember::cat(x, *c.p.dim)}; }, DF_T { return {at::cat(x, *c.p.dim)}; }, kGrad, "shape"});
  ops.push_back({"stack", [](Gen& g, Case& c) { gen_join(g, c, true); },
                 DF_E { return {ember::stack(x, *c.p.dim)}; }, DF_T { return {at::stack(x, *c.p.dim)}; }, kGrad,
                 "shape"});
  ops.push_back({"flip",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   c.p.dims = g.dims(rank_of(c));
                 },
                 DF_E { return {ember::flip(x[0], c.p.dims)}; }, DF_T { return {at::flip(x[0], c.p.dims)}; }, kGrad,
                 "shape"});
  ops.push_back({"roll",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   c.p.dims = g.dims(rank_of(c));
                   if (c.p.dims.empty() && g.rng.chance(0.5) && rank_of(c) == 0) c.p.dims = {0};
                   const size_t n = c.p.dims.empty() ? 1 : c.p.dims.size();
                   for (size_t i = 0; i < n; ++i) c.p.ints.push_back(g.rng.range(-7, 7));
                 },
                 DF_E { return {ember::roll(x[0], c.p.ints, c.p.dims)}; },
                 DF_T { return {at::roll(x[0], c.p.ints, c.p.dims)}; }, kGrad, "shape"});
  ops.push_back({"transpose",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   c.p.ints = {g.dim(rank_of(c)), g.dim(rank_of(c))};
                 },
                 DF_E { return {x[0].transpose(c.p.ints[0], c.p.ints[1])}; },
                 DF_T { return {x[0].transpose(c.p.ints[0], c.p.ints[1])}; }, kGrad, "shape"});
  ops.push_back({"permute",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   const int64_t r = rank_of(c);
                   for (int64_t i = 0; i < r; ++i) c.p.dims.push_back(i);
                   for (int64_t i = r; i > 1; --i) std::swap(c.p.dims[i - 1], c.p.dims[g.rng.range(0, i - 1)]);
                   for (int64_t& d : c.p.dims)
                     if (g.rng.chance(0.2)) d -= r;
                 },
                 DF_E { return {x[0].permute(c.p.dims)}; }, DF_T { return {x[0].permute(c.p.dims)}; }, kGrad, "shape"});
  ops.push_back({"repeat",
                 [](Gen& g, Case& c) {
                   c.tensors.push_back(g.tensor(g.any_dtype(), g.shape(0, 3, 64)));
                   const int64_t n = rank_of(c) + g.rng.range(0, 2);
                   for (int64_t i = 0; i < n; ++i) c.p.ints.push_back(g.rng.range(0, 3));
                 },
                 DF_E { return {x[0].repeat(c.p.ints)}; }, DF_T { return {x[0].repeat(c.p.ints)}; }, kGrad, "shape"});
  ops.push_back({"tile",
                 [](Gen& g, Case& c) {
                   c.tensors.push_back(g.tensor(g.any_dtype(), g.shape(0, 3, 64)));
                   const int64_t n = g.rng.range(0, 4);
                   for (int64_t i = 0; i < n; ++i) c.p.ints.push_back(g.rng.range(0, 3));
                 },
                 DF_E { return {x[0].tile(c.p.ints)}; }, DF_T { return {x[0].tile(c.p.ints)}; }, kGrad, "shape"});
  ops.push_back({"repeat_interleave",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   if (g.rng.chance(0.6)) c.p.dim = g.dim(rank_of(c));
                   c.p.variant = g.rng.chance(0.5) ? 0 : 1;  // 1: a repeats tensor
                   if (c.p.variant == 0) {
                     c.p.k = g.rng.range(0, 3);
                   } else {
                     const int64_t n = c.p.dim ? extent(c.tensors[0].sizes, *c.p.dim) : c.tensors[0].numel();
                     c.tensors.push_back(g.rng.chance(0.3) ? g.index_tensor({}, 0, 3)
                                                           : g.index_tensor({n}, 0, 3));
                   }
                 },
                 DF_E {
                   if (c.p.variant == 0) return {ember::repeat_interleave(x[0], c.p.k, c.p.dim)};
                   return {ember::repeat_interleave(x[0], x[1], c.p.dim)};
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::repeat_interleave(x[0], c.p.k, topt(c.p.dim))};
                   return {at::repeat_interleave(x[0], x[1], topt(c.p.dim))};
                 },
                 kGrad, "shape"});
  for (const char* name : {"tril", "triu"}) {
    const bool lower = name[2] == 'i';
    ops.push_back({name,
                   [](Gen& g, Case& c) {
                     gen_one(g, c, 1);
                     c.p.k = g.rng.range(-4, 4);
                   },
                   [lower](const Case& c, ETensors& x) -> ETensors {
                     return {lower ? ember::tril(x[0], c.p.k) : ember::triu(x[0], c.p.k)};
                   },
                   [lower](const Case& c, TTensors& x) -> TTensors {
                     return {lower ? at::tril(x[0], c.p.k) : at::triu(x[0], c.p.k)};
                   },
                   kGrad, "shape"});
  }
  ops.push_back({"pad",
                 [](Gen& g, Case& c) {
                   static const std::vector<std::string> modes = {"constant", "constant", "reflect", "replicate",
                                                                  "circular"};
                   c.p.mode = g.rng.pick(modes);
                   const bool constant = c.p.mode == "constant";
                   c.tensors.push_back(g.tensor(constant ? g.any_dtype() : g.float_dtype(), g.shape(constant ? 0 : 2, 4)));
                   const int64_t r = rank_of(c);
                   const int64_t pairs = constant ? g.rng.range(0, std::max<int64_t>(r, 1))
                                                  : g.rng.range(1, std::min<int64_t>(3, std::max<int64_t>(r - 1, 1)));
                   for (int64_t i = 0; i < 2 * pairs; ++i) c.p.ints.push_back(g.rng.range(constant ? -2 : 0, 3));
                   if (constant && g.rng.chance(0.5)) c.p.reals.push_back(g.small_double().re);
                 },
                 DF_E {
                   std::optional<double> v;
                   if (!c.p.reals.empty()) v = c.p.reals[0];
                   return {ember::pad(x[0], c.p.ints, c.p.mode, v)};
                 },
                 DF_T {
                   c10::optional<double> v;
                   if (!c.p.reals.empty()) v = c.p.reals[0];
                   return {at::pad(x[0], c.p.ints, c.p.mode, v)};
                 },
                 kGrad, "shape"});
  ops.push_back({"narrow",
                 [](Gen& g, Case& c) {
                   gen_one(g, c, 1);
                   const int64_t d = g.dim(rank_of(c));
                   const int64_t n = extent(c.tensors[0].sizes, d);
                   c.p.dim = d;
                   c.p.ints = {g.rng.range(-n, n), 0};
                   c.p.ints[1] = g.rng.range(0, n);
                 },
                 DF_E { return {x[0].narrow(*c.p.dim, c.p.ints[0], c.p.ints[1])}; },
                 DF_T { return {x[0].narrow(*c.p.dim, c.p.ints[0], c.p.ints[1])}; }, kGrad, "shape"});
  ops.push_back({"diagonal",
                 [](Gen& g, Case& c) {
                   gen_one(g, c, 2);
                   c.p.ints = {g.rng.range(-3, 3), g.dim(rank_of(c)), g.dim(rank_of(c))};
                 },
                 DF_E { return {x[0].diagonal(c.p.ints[0], c.p.ints[1], c.p.ints[2])}; },
                 DF_T { return {x[0].diagonal(c.p.ints[0], c.p.ints[1], c.p.ints[2])}; }, kGrad, "shape"});
  ops.push_back({"squeeze_unsqueeze",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   c.p.variant = static_cast<int>(g.rng.range(0, 2));  // squeeze(), squeeze(dim), unsqueeze(dim)
                   c.p.dim = g.dim(rank_of(c) + (c.p.variant == 2 ? 1 : 0));
                 },
                 DF_E {
                   if (c.p.variant == 0) return {x[0].squeeze()};
                   if (c.p.variant == 1) return {x[0].squeeze(*c.p.dim)};
                   return {x[0].unsqueeze(*c.p.dim)};
                 },
                 DF_T {
                   if (c.p.variant == 0) return {x[0].squeeze()};
                   if (c.p.variant == 1) return {x[0].squeeze(*c.p.dim)};
                   return {x[0].unsqueeze(*c.p.dim)};
                 },
                 kGrad, "shape"});
  ops.push_back({"reshape_view",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   // A new shape of the same numel (or, rarely, not), maybe with a -1.
                   const int64_t n = c.tensors[0].numel();
                   std::vector<int64_t> s;
                   int64_t left = n;
                   while (left > 1 && s.size() < 4) {
                     int64_t f = g.rng.range(1, 4);
                     while (left % f) --f;
                     s.push_back(f);
                     left /= f;
                   }
                   if (left != 1 || n == 0) s.push_back(left);
                   if (!s.empty() && g.rng.chance(0.3)) s[static_cast<size_t>(g.rng.range(0, static_cast<int64_t>(s.size()) - 1))] = -1;
                   if (g.rng.chance(0.05)) s.push_back(2);
                   c.p.dims = s;
                   c.p.variant = g.rng.chance(0.5) ? 0 : 1;  // reshape, view
                 },
                 DF_E { return {c.p.variant == 0 ? x[0].reshape(c.p.dims) : x[0].view(c.p.dims)}; },
                 DF_T { return {c.p.variant == 0 ? x[0].reshape(c.p.dims) : x[0].view(c.p.dims)}; }, kGrad, "shape"});
  ops.push_back({"expand",
                 [](Gen& g, Case& c) {
                   c.tensors.push_back(g.tensor(g.any_dtype(), g.shape(0, 3, 64)));
                   std::vector<int64_t> s = c.tensors[0].sizes;
                   for (int64_t& v : s) {
                     if (v == 1 && g.rng.chance(0.6)) v = g.rng.range(0, 4);
                     else if (g.rng.chance(0.2)) v = -1;
                   }
                   if (g.rng.chance(0.4)) s.insert(s.begin(), g.rng.range(1, 3));
                   c.p.dims = s;
                 },
                 DF_E { return {x[0].expand(c.p.dims)}; }, DF_T { return {x[0].expand(c.p.dims)}; }, kGrad, "shape"});
  ops.push_back({"flatten",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   c.p.ints = {g.dim(rank_of(c)), g.dim(rank_of(c))};
                 },
                 DF_E { return {x[0].flatten(c.p.ints[0], c.p.ints[1])}; },
                 DF_T { return {x[0].flatten(c.p.ints[0], c.p.ints[1])}; }, kGrad, "shape"});
  ops.push_back({"movedim",
                 [](Gen& g, Case& c) {
                   gen_one(g, c, 1);
                   c.p.ints = {g.dim(rank_of(c)), g.dim(rank_of(c))};
                 },
                 DF_E { return {x[0].movedim(c.p.ints[0], c.p.ints[1])}; },
                 DF_T { return {x[0].movedim(c.p.ints[0], c.p.ints[1])}; }, kGrad, "shape"});
  ops.push_back({"split_chunk",
                 [](Gen& g, Case& c) {
                   gen_one(g, c, 1);
                   c.p.dim = g.dim(rank_of(c));
                   c.p.variant = static_cast<int>(g.rng.range(0, 2));  // split(size), chunk(n), unbind
                   c.p.k = g.rng.range(c.p.variant == 0 ? 0 : 1, 4);
                 },
                 DF_E {
                   if (c.p.variant == 0) return x[0].split(c.p.k, *c.p.dim);
                   if (c.p.variant == 1) return x[0].chunk(c.p.k, *c.p.dim);
                   return x[0].unbind(*c.p.dim);
                 },
                 DF_T {
                   if (c.p.variant == 0) return x[0].split(c.p.k, *c.p.dim);
                   if (c.p.variant == 1) return x[0].chunk(c.p.k, *c.p.dim);
                   return x[0].unbind(*c.p.dim);
                 },
                 kGrad, "shape"});
  ops.push_back({"unfold",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   c.p.dim = g.dim(rank_of(c));
                   c.p.ints = {g.rng.range(0, 4), g.rng.range(1, 3)};
                 },
                 DF_E { return {x[0].unfold(*c.p.dim, c.p.ints[0], c.p.ints[1])}; },
                 DF_T { return {x[0].unfold(*c.p.dim, c.p.ints[0], c.p.ints[1])}; }, kGrad, "shape"});
}

// ---- indexing ----

// gather / take_along_dim: index of self's rank, extents <= self's off dim.
void gen_gather(Gen& g, Case& c) {
  const std::vector<int64_t> s = g.shape();
  c.tensors.push_back(g.tensor(g.any_dtype(), s));
  const int64_t r = static_cast<int64_t>(s.size());
  const int64_t d = g.dim(r);
  c.p.dim = d;
  std::vector<int64_t> is = s;
  for (size_t i = 0; i < is.size(); ++i) is[i] = g.rng.range(0, is[i] + (static_cast<int64_t>(i) == (d < 0 ? d + r : d) ? 2 : 0));
  const int64_t n = extent(s, d);
  const int64_t hi = g.rng.chance(0.03) ? n : n - 1;  // rarely out of range: both must raise
  c.tensors.push_back(g.index_tensor(is, g.rng.chance(0.2) ? -n : 0, std::max<int64_t>(hi, 0)));
}

// scatter family: self, index (unique along dim within each slice unless
// `dup_ok`), src shaped like index (or larger).
void gen_scatter(Gen& g, Case& c, bool dup_ok, bool float_only = false) {
  const std::vector<int64_t> s = g.shape(0, 4);
  const DType t = float_only ? g.float_dtype() : g.any_dtype();
  c.tensors.push_back(g.tensor(t, s));
  const int64_t r = static_cast<int64_t>(s.size());
  const int64_t d = g.dim(r);
  const int64_t dd = r == 0 ? 0 : (d < 0 ? d + r : d);
  c.p.dim = d;
  const int64_t n = extent(s, d);
  std::vector<int64_t> is = s;
  for (size_t i = 0; i < is.size(); ++i) is[i] = g.rng.range(0, is[i]);
  // Entries along dim: a random permutation prefix per slice (distinct), or anything.
  std::vector<int64_t> strides(is.size(), 1);
  for (size_t i = is.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(is[i], 1);
  std::vector<int64_t> perm_base(static_cast<size_t>(std::max<int64_t>(n, 1)));
  const uint64_t salt = g.rng.next();
  TensorArg idx = index_with(is, [&](int64_t flat) -> int64_t {
    if (n == 0) return 0;
    if (dup_ok) return static_cast<int64_t>((static_cast<uint64_t>(flat) * 2654435761u + salt) % static_cast<uint64_t>(n));
    // position along dim of this element, and a per-slice rotation
    const int64_t pos = r == 0 ? 0 : (flat / strides[static_cast<size_t>(dd)]) % std::max<int64_t>(is[static_cast<size_t>(dd)], 1);
    const int64_t slice = flat - pos * (r == 0 ? 0 : strides[static_cast<size_t>(dd)]);
    return (pos + static_cast<int64_t>((static_cast<uint64_t>(slice) * 0x9e3779b97f4a7c15ULL + salt) >> 40)) % n;
  });
  c.tensors.push_back(idx);
  std::vector<int64_t> ss = is;
  for (size_t i = 0; i < ss.size(); ++i) ss[i] += g.rng.chance(0.2) ? 1 : 0;
  c.tensors.push_back(g.tensor(g.rng.chance(0.85) ? t : g.any_dtype(), ss));
  c.tol_scale = 8;
}

// index_* along a dim with a 1-d index (distinct entries unless dup_ok).
void gen_index_dim(Gen& g, Case& c, bool source, bool dup_ok) {
  const std::vector<int64_t> s = g.shape(0, 4);
  const DType t = g.any_dtype();
  c.tensors.push_back(g.tensor(t, s));
  const int64_t d = g.dim(static_cast<int64_t>(s.size()));
  c.p.dim = d;
  const int64_t n = extent(s, d);
  const int64_t m = dup_ok ? g.rng.range(0, n + 2) : g.rng.range(0, n);
  const uint64_t rot = g.rng.next() % static_cast<uint64_t>(std::max<int64_t>(n, 1));
  const bool neg = g.rng.chance(0.2);
  TensorArg idx = index_with({m}, [&](int64_t i) -> int64_t {
    if (n == 0) return 0;
    const int64_t v = dup_ok ? static_cast<int64_t>((static_cast<uint64_t>(i) * 7 + rot) % static_cast<uint64_t>(n))
                             : static_cast<int64_t>((static_cast<uint64_t>(i) + rot) % static_cast<uint64_t>(n));
    return neg ? v - n : v;
  });
  if (g.rng.chance(0.2)) idx.sizes = {};  // a 0-dim index
  if (idx.sizes.empty() && idx.ints.empty()) idx.ints.push_back(0);
  if (idx.sizes.empty()) idx.strides = {};
  if (g.rng.chance(0.15)) {  // int32 index
    idx.dtype = DType::Int32;
  }
  c.tensors.push_back(idx);
  if (source) {
    std::vector<int64_t> ss = s;
    if (!ss.empty()) ss[static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(s.size()) : d)] = idx.numel();
    c.tensors.push_back(g.tensor(g.rng.chance(0.85) ? t : g.any_dtype(), ss));
  }
  c.tol_scale = 8;
}

void add_indexing(std::vector<OpDef>& ops) {
  ops.push_back({"gather", gen_gather, DF_E { return {ember::gather(x[0], *c.p.dim, x[1])}; },
                 DF_T { return {at::gather(x[0], *c.p.dim, x[1])}; }, kGrad, "index"});
  ops.push_back({"take_along_dim",
                 [](Gen& g, Case& c) {
                   gen_gather(g, c);
                   if (g.rng.chance(0.3)) c.p.dim.reset();
                 },
                 DF_E { return {ember::take_along_dim(x[0], x[1], c.p.dim)}; },
                 DF_T { return {at::take_along_dim(x[0], x[1], topt(c.p.dim))}; }, kGrad, "index"});
  ops.push_back({"scatter",
                 [](Gen& g, Case& c) {
                   gen_scatter(g, c, false);
                   c.p.variant = static_cast<int>(g.rng.range(0, 1));  // 0 src, 1 value
                   c.p.scalars.push_back(g.scalar_for(c.tensors[0].dtype));
                 },
                 DF_E {
                   if (c.p.variant == 0) return {ember::scatter(x[0], *c.p.dim, x[1], x[2])};
                   return {ember::scatter(x[0], *c.p.dim, x[1], to_ember(c.p.scalars[0]))};
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::scatter(x[0], *c.p.dim, x[1], x[2])};
                   return {at::scatter(x[0], *c.p.dim, x[1], to_torch(c.p.scalars[0]))};
                 },
                 kGrad, "index"});
  ops.push_back({"scatter_reduce_str",
                 [](Gen& g, Case& c) {
                   gen_scatter(g, c, true);
                   c.p.mode = g.rng.chance(0.5) ? "add" : "multiply";
                 },
                 DF_E { return {ember::scatter(x[0], *c.p.dim, x[1], x[2], c.p.mode)}; },
                 DF_T { return {at::scatter(x[0], *c.p.dim, x[1], x[2], c.p.mode)}; }, 0, "index"});
  ops.push_back({"scatter_add", [](Gen& g, Case& c) { gen_scatter(g, c, true); },
                 DF_E { return {ember::scatter_add(x[0], *c.p.dim, x[1], x[2])}; },
                 DF_T { return {at::scatter_add(x[0], *c.p.dim, x[1], x[2])}; }, kGrad, "index"});
  ops.push_back({"scatter_reduce",
                 [](Gen& g, Case& c) {
                   gen_scatter(g, c, true);
                   static const std::vector<std::string> modes = {"sum", "prod", "mean", "amax", "amin"};
                   c.p.mode = g.rng.pick(modes);
                   c.p.flag = g.rng.chance(0.5);  // include_self
                 },
                 DF_E { return {ember::scatter_reduce(x[0], *c.p.dim, x[1], x[2], c.p.mode, c.p.flag)}; },
                 DF_T { return {at::scatter_reduce(x[0], *c.p.dim, x[1], x[2], c.p.mode, c.p.flag)}; }, kGrad,
                 "index"});
  ops.push_back({"index_select", [](Gen& g, Case& c) { gen_index_dim(g, c, false, true); },
                 DF_E { return {ember::index_select(x[0], *c.p.dim, x[1])}; },
                 DF_T { return {at::index_select(x[0], *c.p.dim, x[1])}; }, kGrad, "index",
                 // libtorch writes every selected element into the one-element
                 // result of a 0-dim input: a heap overflow
                 [](const Case& c) { return c.tensors[0].sizes.empty() && c.tensors[1].numel() > 1; }});
  ops.push_back({"index_add",
                 [](Gen& g, Case& c) {
                   gen_index_dim(g, c, true, true);
                   c.p.scalars.push_back(g.rng.chance(0.6) ? ScalarArg::of_int(1) : g.scalar_for(c.tensors[0].dtype));
                 },
                 DF_E { return {ember::index_add(x[0], *c.p.dim, x[1], x[2], to_ember(c.p.scalars[0]))}; },
                 DF_T { return {at::index_add(x[0], *c.p.dim, x[1], x[2], to_torch(c.p.scalars[0]))}; }, kGrad,
                 "index"});
  ops.push_back({"index_copy", [](Gen& g, Case& c) { gen_index_dim(g, c, true, false); },
                 DF_E { return {ember::index_copy(x[0], *c.p.dim, x[1], x[2])}; },
                 DF_T { return {at::index_copy(x[0], *c.p.dim, x[1], x[2])}; }, kGrad, "index"});
  ops.push_back({"index_fill",
                 [](Gen& g, Case& c) {
                   gen_index_dim(g, c, false, true);
                   c.p.scalars.push_back(g.scalar_for(c.tensors[0].dtype));
                 },
                 DF_E { return {ember::index_fill(x[0], *c.p.dim, x[1], to_ember(c.p.scalars[0]))}; },
                 DF_T { return {at::index_fill(x[0], *c.p.dim, x[1], to_torch(c.p.scalars[0]))}; }, kGrad, "index"});
  ops.push_back({"masked_select",
                 [](Gen& g, Case& c) {
                   const std::vector<int64_t> s = g.shape();
                   c.tensors.push_back(g.tensor(g.any_dtype(), s));
                   c.tensors.push_back(g.mask(g.broadcast_partner(s)));
                   if (g.rng.chance(0.3)) {  // the mask has the larger shape
                     c.tensors[0] = g.tensor(c.tensors[0].dtype, c.tensors[1].sizes);
                     c.tensors[1] = g.mask(s);
                   }
                 },
                 DF_E { return {ember::masked_select(x[0], x[1])}; },
                 DF_T { return {at::masked_select(x[0], x[1])}; }, kGrad, "index"});
  ops.push_back({"masked_scatter",
                 [](Gen& g, Case& c) {
                   const std::vector<int64_t> s = g.shape();
                   const DType t = g.any_dtype();
                   c.tensors.push_back(g.tensor(t, s));
                   c.tensors.push_back(g.mask(g.broadcast_partner(s)));
                   int64_t n = 1;
                   for (int64_t v : s) n *= v;
                   c.tensors.push_back(g.tensor(g.rng.chance(0.9) ? t : g.any_dtype(), {n + g.rng.range(0, 2)}));
                 },
                 DF_E { return {ember::masked_scatter(x[0], x[1], x[2])}; },
                 DF_T { return {at::masked_scatter(x[0], x[1], x[2])}; }, kGrad, "index"});
  ops.push_back({"nonzero", [](Gen& g, Case& c) { gen_one(g, c); },
                 DF_E { return {ember::nonzero(x[0])}; }, DF_T { return {at::nonzero(x[0])}; }, 0, "index"});
  ops.push_back({"take",
                 [](Gen& g, Case& c) {
                   gen_one(g, c);
                   const int64_t n = c.tensors[0].numel();
                   c.tensors.push_back(g.index_tensor(g.shape(0, 3, 64), -n, std::max<int64_t>(n - 1, 0)));
                 },
                 DF_E { return {ember::take(x[0], x[1])}; }, DF_T { return {at::take(x[0], x[1])}; }, kGrad, "index"});
  // Advanced indexing: per dim of self, nothing (a full slice) or an index
  // tensor (ints: -1 none, else the tensor's position in x); a mask sometimes.
  auto gen_advanced = [](Gen& g, Case& c, bool put) {
    const std::vector<int64_t> s = g.shape(1, 4);
    const DType t = g.any_dtype();
    c.tensors.push_back(g.tensor(t, s, {}, put));
    const int64_t r = static_cast<int64_t>(s.size());
    // index_put without accumulate writes each position once: its index
    // tensors share one shape, and the first one's entries are distinct.
    c.p.flag = put && g.rng.chance(0.5);  // accumulate
    const bool distinct = put && !c.p.flag;
    if (g.rng.chance(0.2)) {  // a mask over the leading dims
      const int64_t k = g.rng.range(1, r);
      c.tensors.push_back(g.mask(std::vector<int64_t>(s.begin(), s.begin() + k)));
      c.p.ints.push_back(1);
      for (int64_t i = 1; i < k; ++i) c.p.ints.push_back(-2);  // covered by the mask
    } else {
      std::vector<int64_t> is = g.shape(0, 2, 16);
      bool any = false;
      for (int64_t d = 0; d < r; ++d) {
        if (!(g.rng.chance(0.5) || (!any && d == r - 1))) {
          c.p.ints.push_back(-1);
          continue;
        }
        c.p.ints.push_back(static_cast<int64_t>(c.tensors.size()));
        const int64_t n = s[static_cast<size_t>(d)];
        if (distinct) {
          if (!any) is = {g.rng.range(0, n)};
          const int64_t rot = g.rng.range(0, std::max<int64_t>(n - 1, 0));
          c.tensors.push_back(index_with(is, [&](int64_t i) { return n ? (i + rot) % n : 0; }));
        } else {
          c.tensors.push_back(g.index_tensor(g.rng.chance(0.8) ? is : g.broadcast_partner(is), -n,
                                             std::max<int64_t>(n - 1, 0)));
        }
        any = true;
      }
    }
    if (put) {
      // Values that broadcast to the result: a 0-dim tensor, or a row along an
      // unindexed last dim; sometimes any shape (mostly rejected by both).
      std::vector<int64_t> vs;
      const double u = g.rng.uniform(0, 1);
      if (u < 0.4) vs = {};
      else if (u < 0.75) vs = {c.p.ints.back() == -1 ? s.back() : 1};
      else vs = g.shape(0, 2, 8);
      c.tensors.push_back(g.tensor(t, vs));
    }
  };
  auto ember_indices = [](const Case& c, ETensors& x) {
    std::vector<std::optional<ember::Tensor>> idx;
    for (int64_t v : c.p.ints) {
      if (v == -2) continue;
      if (v < 0) idx.push_back(std::nullopt);
      else idx.push_back(x[static_cast<size_t>(v)]);
    }
    return idx;
  };
  auto torch_indices = [](const Case& c, TTensors& x) {
    c10::List<c10::optional<at::Tensor>> idx;
    for (int64_t v : c.p.ints) {
      if (v == -2) continue;
      if (v < 0) idx.push_back(c10::nullopt);
      else idx.push_back(x[static_cast<size_t>(v)]);
    }
    return idx;
  };
  ops.push_back({"index", [gen_advanced](Gen& g, Case& c) { gen_advanced(g, c, false); },
                 [ember_indices](const Case& c, ETensors& x) -> ETensors { return {ember::index(x[0], ember_indices(c, x))}; },
                 [torch_indices](const Case& c, TTensors& x) -> TTensors { return {at::index(x[0], torch_indices(c, x))}; },
                 kGrad, "index"});
  ops.push_back({"index_put", [gen_advanced](Gen& g, Case& c) { gen_advanced(g, c, true); },
                 [ember_indices](const Case& c, ETensors& x) -> ETensors {
                   return {ember::index_put(x[0], ember_indices(c, x), x.back(), c.p.flag)};
                 },
                 [torch_indices](const Case& c, TTensors& x) -> TTensors {
                   return {at::index_put(x[0], torch_indices(c, x), x.back(), c.p.flag)};
                 },
                 0, "index"});
}

}  // namespace

void add_shape_index_ops(std::vector<OpDef>& ops) {
  add_shape(ops);
  add_indexing(ops);
}

}  // namespace difffuzz
