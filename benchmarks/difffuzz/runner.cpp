// One case: generate, build, run both, compare forward and backward.
#include "runner.h"

#include <torch/csrc/autograd/autograd.h>

#include <chrono>
#include <sstream>

#include "bridge.h"
#include "known_differences.h"

namespace difffuzz {

const std::vector<OpDef>& op_table() {
  static const std::vector<OpDef> table = [] {
    std::vector<OpDef> ops;
    add_elementwise_ops(ops);
    add_reduce_ops(ops);
    add_shape_index_ops(ops);
    add_nn_linalg_ops(ops);
    return ops;
  }();
  return table;
}

bool CaseResult::new_mismatch() const {
  for (const Mismatch& m : mismatches)
    if (m.known.empty()) return true;
  return false;
}

bool CaseResult::known_only() const { return !mismatches.empty() && !new_mismatch(); }

size_t op_for_case(const RunConfig& cfg, uint64_t index) {
  Rng pick(case_seed(cfg.seed, index) ^ 0x6f70u);
  return cfg.ops[static_cast<size_t>(pick.next() % cfg.ops.size())];
}

namespace {

struct Stopwatch {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

std::string describe(const at::Tensor& t, at::IntArrayRef strides) {
  std::ostringstream s;
  s.precision(9);
  s << c10::toString(t.scalar_type()) << shape_str(t.sizes()) << " strides=" << shape_str(strides);
  if (t.numel() <= 64) {
    at::Tensor v = t.detach().resolve_conj().resolve_neg();
    v = (v.is_complex() ? at::view_as_real(v.contiguous()) : v).reshape({-1}).to(at::kDouble).contiguous();
    s << " values=[";
    for (int64_t i = 0; i < v.numel(); ++i) s << (i ? ", " : "") << v.data_ptr<double>()[i];
    s << ']';
  }
  return s.str();
}

// Values compared through the entries they select: output 1 holds indices
// into input 0 along p.dim (ties may pick either of equal values).
std::string compare_tied_indices(const Case& c, const at::Tensor& input, const at::Tensor& ie, const at::Tensor& it) {
  if (input.dim() == 0) return at::equal(ie, it) ? "" : "indices of a 0-dim input differ";
  int64_t d = c.p.dim.value_or(0);
  if (d < 0) d += input.dim();
  at::Tensor e = ie, t = it;
  if (e.dim() < input.dim()) e = e.unsqueeze(d), t = t.unsqueeze(d);
  if (e.numel() && (e.min().item<int64_t>() < 0 || e.max().item<int64_t>() >= input.size(d)))
    return "ember indices out of range";
  at::Tensor x = input.detach();
  return compare_values(x.gather(d, e), x.gather(d, t), 0, 0);
}

// Per element: 0 where a equals ref (NaN equal to NaN), inf where only one is
// NaN, else |a - ref|. Real views of complex tensors.
at::Tensor distance(const at::Tensor& a, const at::Tensor& ref) {
  at::Tensor same = (a == ref) | (a.isnan() & ref.isnan());
  at::Tensor one_nan = a.isnan() ^ ref.isnan();
  at::Tensor d = (a - ref).abs();
  d = at::where(one_nan, at::full({}, INFINITY, d.options()), d);
  return at::where(same, at::zeros({}, d.options()), d);
}

// The referee's inputs: float64 / complex128 (from narrower floating types)
// and contiguous, so that the referee also stands apart from libtorch's
// precision and from its strided code paths.
at::Tensor widen(const at::Tensor& t) {
  const at::ScalarType s = t.scalar_type();
  at::Tensor w = t.detach();
  if (s == at::kHalf || s == at::kBFloat16 || s == at::kFloat) w = w.to(at::kDouble);
  else if (s == at::kComplexFloat) w = w.to(at::kComplexDouble);
  return w.contiguous().clone();
}

// Whether `te` is, on every element, within tolerance of `ref` or at least as
// close to it as `tt` (all three of one shape).
bool closer(const at::Tensor& te, const at::Tensor& tt, const at::Tensor& ref_in, const Tolerance& tol, double scale) {
  if (ref_in.sizes() != tt.sizes() || te.sizes() != tt.sizes()) return false;
  const bool complex = tt.is_complex() || ref_in.is_complex();
  auto real = [&](const at::Tensor& t) {
    return complex ? at::view_as_real(t.to(at::kComplexDouble)) : t.to(at::kDouble);
  };
  const at::Tensor ref = real(ref_in.detach().resolve_conj().resolve_neg());
  const at::Tensor de = distance(real(te), ref), dt = distance(real(tt), ref);
  const at::Tensor ok = (de <= dt) | ((de <= tol.atol * scale + tol.rtol * ref.abs()) & ref.isfinite());
  return ok.all().item<bool>();
}

// The referee for a values mismatch: libtorch again, on inputs widened to
// float64 / complex128 and made contiguous; Ember passes when closer() to that
// than libtorch's own result.
bool ember_closer(const OpDef& op, const Case& c, const TTensors& inputs, size_t out, const at::Tensor& te,
                  const at::Tensor& tt, const Tolerance& tol) {
  TTensors wide;
  for (const at::Tensor& t : inputs) wide.push_back(widen(t));
  TTensors ref_out;
  try {
    at::NoGradGuard no_grad;
    ref_out = op.torch(c, wide);
  } catch (const std::exception&) {
    return false;
  }
  if (out >= ref_out.size()) return false;
  return closer(te, tt, ref_out[out], tol, c.tol_scale);
}

// The same for gradients: the widened inputs' gradients of the same weighted
// sum (weights widened too).
std::vector<at::Tensor> reference_gradients(const OpDef& op, const Case& c, const TTensors& inputs,
                                            const std::vector<size_t>& grad_inputs,
                                            const std::vector<size_t>& outputs, const TTensors& weights) {
  TTensors wide;
  for (const at::Tensor& t : inputs) wide.push_back(widen(t));
  std::vector<at::Tensor> in, out, w;
  for (size_t i : grad_inputs) {
    wide[i].requires_grad_(true);
    in.push_back(wide[i]);
  }
  try {
    TTensors o = op.torch(c, wide);
    for (size_t k = 0; k < outputs.size(); ++k) {
      out.push_back(o.at(outputs[k]));
      w.push_back(widen(weights[k]).to(o.at(outputs[k]).scalar_type()));
    }
    return torch::autograd::grad(out, in, w, c10::nullopt, false, /*allow_unused=*/true);
  } catch (const std::exception&) {
    return {};
  }
}

// Weights for the vector-Jacobian product: uniform in [-1, 1] (both parts for complex).
TensorArg weight_like(Rng& rng, const at::Tensor& out) {
  TensorArg w;
  w.dtype = to_ember(out.scalar_type());
  w.sizes = out.sizes().vec();
  make_contiguous_layout(w);
  const int64_t n = w.numel() * (ember::is_complex(w.dtype) ? 2 : 1);
  for (int64_t i = 0; i < n; ++i) w.reals.push_back(std::round(rng.uniform(-1, 1) * 64) / 64);
  return w;
}

bool differentiable(at::ScalarType t) { return at::isFloatingType(t) || at::isComplexType(t); }

void compare_gradients(const OpDef& op, CaseResult& r, Rng& rng, ETensors& ex, TTensors& tx, const ETensors& eo,
                       const TTensors& to, bool keep) {
  std::vector<size_t> inputs;
  for (size_t i = 0; i < tx.size(); ++i)
    if (tx[i].requires_grad()) inputs.push_back(i);
  if (inputs.empty()) return;
  std::vector<ember::Tensor> e_out, e_w, e_in;
  std::vector<at::Tensor> t_out, t_w, t_in;
  std::vector<size_t> out_idx;
  for (size_t i = 0; i < to.size(); ++i) {
    const bool er = eo[i].requires_grad(), tr = to[i].requires_grad();
    if (er != tr) {
      r.mismatches.push_back({"requires_grad", static_cast<int>(i),
                              std::string("ember ") + (er ? "true" : "false") + " vs torch " + (tr ? "true" : "false")});
      return;
    }
    if (!tr || !differentiable(to[i].scalar_type())) continue;
    out_idx.push_back(i);
    const TensorArg w = weight_like(rng, to[i]);
    e_out.push_back(eo[i]);
    t_out.push_back(to[i]);
    e_w.push_back(make_ember_tensor(w));
    t_w.push_back(make_torch_tensor(w));
  }
  if (t_out.empty()) return;
  for (size_t i : inputs) {
    e_in.push_back(ex[i]);
    t_in.push_back(tx[i]);
  }
  std::vector<ember::Tensor> eg;
  std::vector<at::Tensor> tg;
  std::string e_err, t_err;
  try {
    const Stopwatch sw;
    eg = ember::autograd::grad(e_out, e_in, e_w, std::nullopt, false, /*allow_unused=*/true);
    r.seconds[2] = sw.seconds();
  } catch (const std::exception& e) {
    e_err = error_text(e);
  }
  try {
    const Stopwatch sw;
    tg = torch::autograd::grad(t_out, t_in, t_w, c10::nullopt, false, /*allow_unused=*/true);
    r.seconds[3] = sw.seconds();
  } catch (const std::exception& e) {
    t_err = error_text(e);
  }
  if (!e_err.empty() || !t_err.empty()) {
    if (e_err.empty() && t_err.find("not implemented for") != std::string::npos) {
      r.ember_extension = true;  // libtorch has no backward kernel for the dtype
      return;
    }
    if (e_err.empty() != t_err.empty())
      r.mismatches.push_back({"grad_raise", -1,
                              e_err.empty() ? "torch raised: " + t_err : "ember raised: " + e_err});
    return;
  }
  std::vector<at::Tensor> ref;  // the referee's gradients, computed at the first mismatch
  bool referee_done = false;
  for (size_t k = 0; k < inputs.size(); ++k) {
    // An unused input's gradient is undefined in one library and zeros in the other.
    at::Tensor te = eg[k].defined() ? ember_to_torch(eg[k]) : at::zeros_like(tx[inputs[k]]).detach();
    at::Tensor tt = tg[k].defined() ? tg[k].detach().resolve_conj().resolve_neg() : at::zeros_like(tx[inputs[k]]).detach();
    if (te.scalar_type() != tt.scalar_type() || te.sizes() != tt.sizes()) {
      r.mismatches.push_back({"grad", static_cast<int>(inputs[k]),
                              "gradient " + std::string(c10::toString(te.scalar_type())) + shape_str(te.sizes()) +
                                  " vs torch " + c10::toString(tt.scalar_type()) + shape_str(tt.sizes())});
      continue;
    }
    if (keep) {
      r.ember_grads.push_back(describe(te, te.strides()));
      r.torch_grads.push_back(describe(tt, tt.strides()));
    }
    // The gradient went through every output's dtype (a float64 input
    // reduced with dtype=float32 has a float32-accurate gradient).
    Tolerance tol = tolerance_for(tt.scalar_type());
    for (const at::Tensor& o : t_out) {
      const Tolerance ot = tolerance_for(o.scalar_type());
      tol = {std::max(tol.rtol, ot.rtol), std::max(tol.atol, ot.atol)};
    }
    tol = {4 * tol.rtol, 4 * tol.atol};
    const std::string d = compare_values(te, tt.contiguous(), tol.rtol, tol.atol * r.c.tol_scale);
    if (d.empty()) continue;
    Mismatch m{"grad", static_cast<int>(inputs[k]), "d/d input " + std::to_string(inputs[k]) + ": " + d};
    if (!referee_done) {
      ref = reference_gradients(op, r.c, r.torch_inputs, inputs, out_idx, t_w);
      referee_done = true;
    }
    if (k < ref.size() && ref[k].defined()) m.ember_closer = closer(te, tt, ref[k], tol, r.c.tol_scale);
    r.mismatches.push_back(m);
  }
}

}  // namespace

std::function<void(const Case&)> on_case_generated;

CaseResult run_case(const RunConfig& cfg, uint64_t index) {
  const OpDef& op = op_table()[op_for_case(cfg, index)];
  Rng rng(case_seed(cfg.seed, index));
  Gen gen(rng, cfg.limits);
  CaseResult r;
  r.c.op = op.name;
  op.gen(gen, r.c);
  if (op.flags & kGrad)
    for (TensorArg& t : r.c.tensors)
      if (!t.no_grad && (ember::is_floating_point(t.dtype) || ember::is_complex(t.dtype))) t.requires_grad = rng.chance(0.8);

  if (on_case_generated) on_case_generated(r.c);
  ETensors ex = make_ember_inputs(r.c);
  TTensors tx = make_torch_inputs(r.c);
  // The torch inputs before the op (in-place ops write into theirs).
  TTensors tx_before;
  for (const at::Tensor& t : tx) tx_before.push_back(t.detach().clone());
  ETensors eo;
  TTensors to;
  try {
    const Stopwatch sw;
    eo = op.ember(r.c, ex);
    r.seconds[0] = sw.seconds();
  } catch (const std::exception& e) {
    r.ember_raised = true;
    r.ember_error = error_text(e);
  }
  if (op.torch_hazard && op.torch_hazard(r.c)) {
    // libtorch would crash (not raise) on this case: Ember ran; nothing to compare.
    r.torch_skipped = true;
    return r;
  }
  try {
    const Stopwatch sw;
    to = op.torch(r.c, tx);
    r.seconds[1] = sw.seconds();
  } catch (const std::exception& e) {
    r.torch_raised = true;
    r.torch_error = error_text(e);
  }
  r.torch_inputs = tx_before;
  r.torch_outputs_t = to;
  if (cfg.keep_outputs) {
    for (const ember::Tensor& t : eo)
      r.ember_outputs.push_back(describe(ember_to_torch(t), std::vector<int64_t>(t.strides().begin(), t.strides().end())));
    for (const at::Tensor& t : to) r.torch_outputs.push_back(describe(t, t.strides()));
  }
  if (r.ember_raised || r.torch_raised) {
    if (r.ember_raised != r.torch_raised) {
      if (!r.ember_raised && r.torch_error.find("not implemented for") != std::string::npos) {
        r.ember_extension = true;
      } else {
        r.mismatches.push_back({"raise", -1,
                                r.ember_raised ? "ember raised: " + r.ember_error : "torch raised: " + r.torch_error});
      }
    }
    classify_known(r);
    return r;
  }
  if (eo.size() != to.size()) {
    r.mismatches.push_back({"count", -1, std::to_string(eo.size()) + " outputs vs torch " + std::to_string(to.size())});
    classify_known(r);
    return r;
  }
  bool forward_ok = true, grads_comparable = true;
  for (size_t i = 0; i < to.size(); ++i) {
    const int oi = static_cast<int>(i);
    if (!eo[i].defined() || !to[i].defined()) {
      if (eo[i].defined() != to[i].defined()) r.mismatches.push_back({"count", oi, "undefined output"});
      continue;
    }
    const at::Tensor te = ember_to_torch(eo[i]);
    const at::Tensor tt = to[i].detach().resolve_conj().resolve_neg();
    if (te.scalar_type() != tt.scalar_type()) {
      r.mismatches.push_back({"dtype", oi, std::string(c10::toString(te.scalar_type())) + " vs torch " +
                                               c10::toString(tt.scalar_type())});
      forward_ok = false;
      continue;
    }
    if (te.sizes() != tt.sizes()) {
      r.mismatches.push_back({"shape", oi, shape_str(te.sizes()) + " vs torch " + shape_str(tt.sizes())});
      forward_ok = false;
      continue;
    }
    std::string d;
    if ((op.flags & kTiedIndices) && i == 1 && to.size() == 2) {
      d = compare_tied_indices(r.c, tx_before[0], te, tt);
      // Equal values picked at other positions route the gradient elsewhere.
      if (!at::equal(te, tt)) grads_comparable = false;
    } else {
      const Tolerance tol = tolerance_for(tt.scalar_type());
      d = compare_values(te, tt.contiguous(), tol.rtol, tol.atol * r.c.tol_scale);
    }
    if (!d.empty()) {
      Mismatch m{"values", oi, d};
      if (tt.is_floating_point() || tt.is_complex())
        m.ember_closer = ember_closer(op, r.c, tx_before, i, te, tt, tolerance_for(tt.scalar_type()));
      r.mismatches.push_back(m);
      forward_ok = false;
    }
    if (!(op.flags & kNoLayout)) {
      const std::string l = compare_layout(eo[i], to[i]);
      if (!l.empty()) r.layout.push_back({"layout", oi, l});
    }
  }
  if (forward_ok && grads_comparable && (op.flags & kGrad)) compare_gradients(op, r, rng, ex, tx, eo, to, cfg.keep_outputs);
  classify_known(r);
  return r;
}

}  // namespace difffuzz
