// Reductions, scans, sorting and selection.
#include <cmath>

#include "ops.h"

namespace difffuzz {

namespace {

TTensors pair_of(std::tuple<at::Tensor, at::Tensor> t) { return {std::get<0>(t), std::get<1>(t)}; }
ETensors pair_of(std::pair<ember::Tensor, ember::Tensor> t) { return {t.first, t.second}; }

// Sums of many terms differ in rounding between the libraries (Ember sums
// floats in double; libtorch pairwise in float): scale the absolute tolerance
// by the number of terms.
void accumulate_tolerance(Case& c) {
  const double n = static_cast<double>(std::max<int64_t>(c.tensors[0].numel(), 1));
  c.tol_scale = 4 * std::sqrt(n) + 1;
}

// One input tensor, dims / keepdim / dtype as the reduction takes them.
// variant 0: whole tensor; 1: over p.dims (or p.dim).
void gen_reduce(Gen& g, Case& c, DType dtype, bool with_dtype, bool single_dim) {
  const std::vector<int64_t> s = g.shape();
  c.tensors.push_back(g.tensor(dtype, s));
  c.p.variant = g.rng.chance(0.3) ? 0 : 1;
  if (single_dim) c.p.dim = g.dim(static_cast<int64_t>(s.size()));
  else c.p.dims = g.dims(static_cast<int64_t>(s.size()));
  c.p.keepdim = g.rng.chance(0.4);
  if (with_dtype && g.rng.chance(0.3)) c.p.dtype = g.any_dtype();
  accumulate_tolerance(c);
}

std::optional<DType> dt(const Case& c) { return c.p.dtype; }
c10::optional<at::ScalarType> tdt(const Case& c) { return to_torch(c.p.dtype); }

void add_reductions(std::vector<OpDef>& ops) {
  ops.push_back({"sum", [](Gen& g, Case& c) { gen_reduce(g, c, g.any_dtype(), true, false); },
                 DF_E {
                   if (c.p.variant == 0) return {ember::sum(x[0], dt(c))};
                   return {ember::sum(x[0], c.p.dims, c.p.keepdim, dt(c))};
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::sum(x[0], tdt(c))};
                   return {at::sum(x[0], c.p.dims, c.p.keepdim, tdt(c))};
                 },
                 kGrad, "reduce"});
  ops.push_back({"mean", [](Gen& g, Case& c) { gen_reduce(g, c, g.any_dtype(), true, false); },
                 DF_E {
                   if (c.p.variant == 0) return {ember::mean(x[0], dt(c))};
                   return {ember::mean(x[0], c.p.dims, c.p.keepdim, dt(c))};
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::mean(x[0], tdt(c))};
                   return {at::mean(x[0], c.p.dims, c.p.keepdim, tdt(c))};
                 },
                 kGrad, "reduce"});
  ops.push_back({"prod", [](Gen& g, Case& c) { gen_reduce(g, c, g.any_dtype(), true, true); },
                 DF_E {
                   if (c.p.variant == 0) return {ember::prod(x[0], dt(c))};
                   return {ember::prod(x[0], *c.p.dim, c.p.keepdim, dt(c))};
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::prod(x[0], tdt(c))};
                   return {at::prod(x[0], *c.p.dim, c.p.keepdim, tdt(c))};
                 },
                 kGrad, "reduce"});
  for (const char* name : {"max", "min"}) {
    const bool is_max = name[1] == 'a';
    ops.push_back({name, [](Gen& g, Case& c) { gen_reduce(g, c, g.real_dtype(), false, true); },
                   [is_max](const Case& c, ETensors& x) -> ETensors {
                     if (c.p.variant == 0) return {is_max ? ember::max(x[0]) : ember::min(x[0])};
                     return pair_of(is_max ? ember::max(x[0], *c.p.dim, c.p.keepdim)
                                           : ember::min(x[0], *c.p.dim, c.p.keepdim));
                   },
                   [is_max](const Case& c, TTensors& x) -> TTensors {
                     if (c.p.variant == 0) return {is_max ? at::max(x[0]) : at::min(x[0])};
                     return pair_of(is_max ? at::max(x[0], *c.p.dim, c.p.keepdim)
                                           : at::min(x[0], *c.p.dim, c.p.keepdim));
                   },
                   kGrad | kTiedIndices, "reduce"});
  }
  ops.push_back({"amax", [](Gen& g, Case& c) { gen_reduce(g, c, g.real_dtype(), false, false); },
                 DF_E { return {ember::amax(x[0], c.p.dims, c.p.keepdim)}; },
                 DF_T { return {at::amax(x[0], c.p.dims, c.p.keepdim)}; }, kGrad, "reduce"});
  ops.push_back({"amin", [](Gen& g, Case& c) { gen_reduce(g, c, g.real_dtype(), false, false); },
                 DF_E { return {ember::amin(x[0], c.p.dims, c.p.keepdim)}; },
                 DF_T { return {at::amin(x[0], c.p.dims, c.p.keepdim)}; }, kGrad, "reduce"});
  for (const char* name : {"argmax", "argmin"}) {
    const bool is_max = name[3] == 'm' && name[4] == 'a';
    ops.push_back({name,
                   [](Gen& g, Case& c) {
                     gen_reduce(g, c, g.real_dtype(), false, true);
                     if (c.p.variant == 0) c.p.dim.reset();
                   },
                   [is_max](const Case& c, ETensors& x) -> ETensors {
                     return {is_max ? ember::argmax(x[0], c.p.dim, c.p.keepdim)
                                    : ember::argmin(x[0], c.p.dim, c.p.keepdim)};
                   },
                   [is_max](const Case& c, TTensors& x) -> TTensors {
                     c10::optional<int64_t> d;
                     if (c.p.dim) d = *c.p.dim;
                     return {is_max ? at::argmax(x[0], d, c.p.keepdim) : at::argmin(x[0], d, c.p.keepdim)};
                   },
                   0, "reduce"});
  }
  for (const char* name : {"var", "std"}) {
    const bool is_var = name[0] == 'v';
    ops.push_back({name,
                   [](Gen& g, Case& c) {
                     gen_reduce(g, c, g.rng.chance(0.85) ? g.float_or_complex_dtype() : g.any_dtype(), false, false);
                     c.p.k = g.rng.range(0, 2);  // correction
                   },
                   [is_var](const Case& c, ETensors& x) -> ETensors {
                     return {is_var ? ember::var(x[0], c.p.dims, c.p.k, c.p.keepdim)
                                    : ember::std(x[0], c.p.dims, c.p.k, c.p.keepdim)};
                   },
                   [is_var](const Case& c, TTensors& x) -> TTensors {
                     at::OptionalIntArrayRef d = c.p.dims.empty() ? at::OptionalIntArrayRef() : at::OptionalIntArrayRef(c.p.dims);
                     // (an int64 correction would pick the `bool unbiased` overload)
                     const c10::optional<int64_t> corr = c.p.k;
                     return {is_var ? at::var(x[0], d, corr, c.p.keepdim) : at::std(x[0], d, corr, c.p.keepdim)};
                   },
                   kGrad, "reduce"});
  }
  ops.push_back({"norm",
                 [](Gen& g, Case& c) {
                   gen_reduce(g, c, g.rng.chance(0.85) ? g.float_or_complex_dtype() : g.any_dtype(), false, false);
                   static const std::vector<double> ps = {2, 1, 0, 3, 0.5, INFINITY, -INFINITY, 2, 2};
                   c.p.scalars.push_back(g.rng.chance(0.2) ? ScalarArg::of_int(2) : ScalarArg::of_double(g.rng.pick(ps)));
                 },
                 DF_E {
                   if (c.p.variant == 0) return {ember::norm(x[0], to_ember(c.p.scalars[0]))};
                   return {ember::norm(x[0], to_ember(c.p.scalars[0]), c.p.dims, c.p.keepdim)};
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::norm(x[0], to_torch(c.p.scalars[0]))};
                   return {at::norm(x[0], to_torch(c.p.scalars[0]), c.p.dims, c.p.keepdim)};
                 },
                 kGrad, "reduce"});
  ops.push_back({"logsumexp",
                 [](Gen& g, Case& c) {
                   gen_reduce(g, c, g.rng.chance(0.85) ? g.float_dtype() : g.any_dtype(), false, false);
                 },
                 DF_E { return {ember::logsumexp(x[0], c.p.dims, c.p.keepdim)}; },
                 DF_T { return {at::logsumexp(x[0], c.p.dims, c.p.keepdim)}; }, kGrad, "reduce"});
  for (const char* name : {"all", "any"}) {
    const bool is_all = name[1] == 'l';
    ops.push_back({name, [](Gen& g, Case& c) { gen_reduce(g, c, g.any_dtype(), false, true); },
                   [is_all](const Case& c, ETensors& x) -> ETensors {
                     if (c.p.variant == 0) return {is_all ? ember::all(x[0]) : ember::any(x[0])};
                     return {is_all ? ember::all(x[0], *c.p.dim, c.p.keepdim) : ember::any(x[0], *c.p.dim, c.p.keepdim)};
                   },
                   [is_all](const Case& c, TTensors& x) -> TTensors {
                     if (c.p.variant == 0) return {is_all ? at::all(x[0]) : at::any(x[0])};
                     return {is_all ? at::all(x[0], *c.p.dim, c.p.keepdim) : at::any(x[0], *c.p.dim, c.p.keepdim)};
                   },
                   0, "reduce"});
  }
  ops.push_back({"count_nonzero", [](Gen& g, Case& c) { gen_reduce(g, c, g.any_dtype(), false, false); },
                 DF_E { return {ember::count_nonzero(x[0], c.p.dims)}; },
                 DF_T { return {at::count_nonzero(x[0], c.p.dims)}; }, 0, "reduce"});
}

void gen_scan(Gen& g, Case& c, DType dtype, bool with_dtype) {
  const std::vector<int64_t> s = g.shape();
  c.tensors.push_back(g.tensor(dtype, s));
  c.p.dim = g.dim(static_cast<int64_t>(s.size()));
  if (with_dtype && g.rng.chance(0.3)) c.p.dtype = g.any_dtype();
  accumulate_tolerance(c);
}

void add_scans(std::vector<OpDef>& ops) {
  ops.push_back({"cumsum", [](Gen& g, Case& c) { gen_scan(g, c, g.any_dtype(), true); },
                 DF_E { return {ember::cumsum(x[0], *c.p.dim, dt(c))}; },
                 DF_T { return {at::cumsum(x[0], *c.p.dim, tdt(c))}; }, kGrad, "scan"});
  ops.push_back({"cumprod", [](Gen& g, Case& c) { gen_scan(g, c, g.any_dtype(), true); },
                 DF_E { return {ember::cumprod(x[0], *c.p.dim, dt(c))}; },
                 DF_T { return {at::cumprod(x[0], *c.p.dim, tdt(c))}; }, kGrad, "scan"});
  ops.push_back({"cummax", [](Gen& g, Case& c) { gen_scan(g, c, g.real_dtype(), false); },
                 DF_E { return pair_of(ember::cummax(x[0], *c.p.dim)); },
                 DF_T { return pair_of(at::cummax(x[0], *c.p.dim)); }, kGrad, "scan"});
  ops.push_back({"cummin", [](Gen& g, Case& c) { gen_scan(g, c, g.real_dtype(), false); },
                 DF_E { return pair_of(ember::cummin(x[0], *c.p.dim)); },
                 DF_T { return pair_of(at::cummin(x[0], *c.p.dim)); }, kGrad, "scan"});
  ops.push_back({"logcumsumexp", [](Gen& g, Case& c) { gen_scan(g, c, g.float_or_complex_dtype(), false); },
                 DF_E { return {ember::logcumsumexp(x[0], *c.p.dim)}; },
                 DF_T { return {at::logcumsumexp(x[0], *c.p.dim)}; }, kGrad, "scan"});
}

// Sorting and selection along p.dim; k drawn within the dim's extent
// (or, rarely, outside it, which both must reject).
void gen_select(Gen& g, Case& c, bool need_k, int64_t k_min) {
  const std::vector<int64_t> s = g.shape();
  c.tensors.push_back(g.tensor(g.real_dtype(), s));
  const int64_t d = g.dim(static_cast<int64_t>(s.size()));
  c.p.dim = d;
  c.p.keepdim = g.rng.chance(0.4);
  c.p.flag = g.rng.chance(0.5);
  if (need_k) {
    const int64_t rank = static_cast<int64_t>(s.size());
    const int64_t extent = rank == 0 ? 1 : s[static_cast<size_t>(d < 0 ? d + rank : d)];
    c.p.k = g.rng.chance(0.05) ? extent + 1 : g.rng.range(k_min, std::max(extent, k_min));
  }
}

void add_sorting(std::vector<OpDef>& ops) {
  // Ember's sorts are stable; libtorch's only when asked, so it is asked.
  ops.push_back({"sort", [](Gen& g, Case& c) { gen_select(g, c, false, 0); },
                 DF_E { return pair_of(ember::sort(x[0], *c.p.dim, c.p.flag, true)); },
                 DF_T { return pair_of(at::sort(x[0], true, *c.p.dim, c.p.flag)); }, kGrad, "sort"});
  ops.push_back({"argsort", [](Gen& g, Case& c) { gen_select(g, c, false, 0); },
                 DF_E { return {ember::argsort(x[0], *c.p.dim, c.p.flag, true)}; },
                 DF_T { return {std::get<1>(at::sort(x[0], true, *c.p.dim, c.p.flag))}; }, 0, "sort"});
  ops.push_back({"msort", [](Gen& g, Case& c) { gen_select(g, c, false, 0); },
                 DF_E { return {ember::msort(x[0])}; },
                 // libtorch's msort is not stable: ties would route gradients differently
                 DF_T { return {std::get<0>(at::sort(x[0], true, 0, false))}; }, kGrad, "sort"});
  ops.push_back({"topk",
                 [](Gen& g, Case& c) {
                   gen_select(g, c, true, 0);
                   c.p.flag2 = true;  // sorted
                 },
                 DF_E { return pair_of(ember::topk(x[0], c.p.k, *c.p.dim, c.p.flag, true)); },
                 DF_T { return pair_of(at::topk(x[0], c.p.k, *c.p.dim, c.p.flag, true)); }, kGrad | kTiedIndices,
                 "sort"});
  ops.push_back({"kthvalue", [](Gen& g, Case& c) { gen_select(g, c, true, 1); },
                 DF_E { return pair_of(ember::kthvalue(x[0], c.p.k, *c.p.dim, c.p.keepdim)); },
                 DF_T { return pair_of(at::kthvalue(x[0], c.p.k, *c.p.dim, c.p.keepdim)); }, kGrad | kTiedIndices,
                 "sort"});
  ops.push_back({"median",
                 [](Gen& g, Case& c) {
                   gen_select(g, c, false, 0);
                   c.p.variant = g.rng.chance(0.3) ? 0 : 1;
                 },
                 DF_E {
                   if (c.p.variant == 0) return {ember::median(x[0])};
                   return pair_of(ember::median(x[0], *c.p.dim, c.p.keepdim));
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::median(x[0])};
                   return pair_of(at::median(x[0], *c.p.dim, c.p.keepdim));
                 },
                 kGrad | kTiedIndices, "sort"});
  ops.push_back({"nanmedian",
                 [](Gen& g, Case& c) {
                   gen_select(g, c, false, 0);
                   c.p.variant = g.rng.chance(0.3) ? 0 : 1;
                 },
                 DF_E {
                   if (c.p.variant == 0) return {ember::nanmedian(x[0])};
                   return pair_of(ember::nanmedian(x[0], *c.p.dim, c.p.keepdim));
                 },
                 DF_T {
                   if (c.p.variant == 0) return {at::nanmedian(x[0])};
                   return pair_of(at::nanmedian(x[0], *c.p.dim, c.p.keepdim));
                 },
                 kGrad | kTiedIndices, "sort"});
  ops.push_back({"mode", [](Gen& g, Case& c) { gen_select(g, c, false, 0); },
                 DF_E { return pair_of(ember::mode(x[0], *c.p.dim, c.p.keepdim)); },
                 DF_T { return pair_of(at::mode(x[0], *c.p.dim, c.p.keepdim)); }, kGrad | kTiedIndices, "sort"});
  ops.push_back({"unique",
                 [](Gen& g, Case& c) {
                   gen_select(g, c, false, 0);
                   c.p.flag2 = g.rng.chance(0.5);  // return_counts; flag: return_inverse
                 },
                 DF_E {
                   auto [u, inv, cnt] = ember::unique(x[0], true, c.p.flag, c.p.flag2);
                   ETensors out = {u};
                   if (c.p.flag) out.push_back(inv);
                   if (c.p.flag2) out.push_back(cnt);
                   return out;
                 },
                 DF_T {
                   auto [u, inv, cnt] = at::_unique2(x[0], true, c.p.flag, c.p.flag2);
                   TTensors out = {u};
                   if (c.p.flag) out.push_back(inv);
                   if (c.p.flag2) out.push_back(cnt);
                   return out;
                 },
                 0, "sort"});
}

}  // namespace

void add_reduce_ops(std::vector<OpDef>& ops) {
  add_reductions(ops);
  add_scans(ops);
  add_sorting(ops);
}

}  // namespace difffuzz
