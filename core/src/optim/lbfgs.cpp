// L-BFGS with optional strong-Wolfe line search (torch/optim/lbfgs.py). The scalars (step
// length t, directional derivatives, curvature products) are doubles here; PyTorch holds
// some of them as 0-d tensors of the parameters' dtype, which for float64 parameters gives
// the same numbers.
#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "common.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember::optim {

namespace {

double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  double xmin_bound, xmax_bound;
  if (bounds) {
    std::tie(xmin_bound, xmax_bound) = *bounds;
  } else if (x1 <= x2) {
    xmin_bound = x1, xmax_bound = x2;
  } else {
    xmin_bound = x2, xmax_bound = x1;
  }
  // Most common case: cubic interpolation of 2 points with function and derivative values
  // for both (Nocedal and Wright, Numerical Optimization, 2nd ed., eq. 3.59).
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, xmin_bound), xmax_bound);
  }
  return (xmin_bound + xmax_bound) / 2.;
}

double dot(const Tensor& a, const Tensor& b) { return a.dot(b).item<double>(); }
double abs_max(const Tensor& a) { return a.abs().max().item<double>(); }

struct Evaluation {
  double f;
  Tensor g;
};

struct LineSearchResult {
  double f;
  Tensor g;
  double t;
  int64_t func_evals;
};

template <class ObjFunc>
LineSearchResult strong_wolfe(ObjFunc&& obj_func, double t, const Tensor& d, double f, Tensor g, double gtd,
                              double c1 = 1e-4, double c2 = 0.9, double tolerance_change = 1e-9,
                              int64_t max_ls = 25) {
  const double d_norm = abs_max(d);
  g = g.clone(MemoryFormat::Contiguous);
  // Evaluate the objective and gradient using the initial step.
  Evaluation ev = obj_func(t);
  double f_new = ev.f;
  Tensor g_new = ev.g;
  int64_t ls_func_evals = 1;
  double gtd_new = dot(g_new, d);

  // Bracket an interval containing a point satisfying the Wolfe criteria.
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    // Check the conditions.
    if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone(MemoryFormat::Contiguous)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone(MemoryFormat::Contiguous)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Interpolate.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair{min_step, max_step});
    // Next step.
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone(MemoryFormat::Contiguous);
    gtd_prev = gtd_new;
    ev = obj_func(t);
    f_new = ev.f;
    g_new = ev.g;
    ls_func_evals += 1;
    gtd_new = dot(g_new, d);
    ls_iter += 1;
  }
  // Reached the maximum number of iterations?
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // Zoom phase: we now have a point satisfying the criteria, or a bracket around it. Refine
  // the bracket until a point satisfying the criteria is found.
  bool insuf_progress = false;
  // Find the high and low points in the bracket.
  int low_pos = 0, high_pos = 1;
  if (!(bracket_f[0] <= bracket_f.back())) low_pos = 1, high_pos = 0;
  while (!done && ls_iter < max_ls) {
    // Line-search bracket is so small.
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    // Compute a new trial value.
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // Test that we are making sufficient progress: if t is too close to a boundary, mark that
    // we made insufficient progress, and if we did so in the last step too, or t is at a
    // boundary, move t to 0.1 * (bracket length) away from the nearest boundary.
    const double bmax = std::max(bracket[0], bracket[1]);
    const double bmin = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (bmax - bmin);
    if (std::min(bmax - t, t - bmin) < eps) {
      // Interpolation close to the boundary.
      if (insuf_progress || t >= bmax || t <= bmin) {
        // Evaluate at 0.1 away from the boundary.
        if (std::abs(t - bmax) < std::abs(t - bmin))
          t = bmax - eps;
        else
          t = bmin + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    // Evaluate the new point.
    ev = obj_func(t);
    f_new = ev.f;
    g_new = ev.g;
    ls_func_evals += 1;
    gtd_new = dot(g_new, d);
    ls_iter += 1;
    if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low_pos]) {
      // The Armijo condition is not satisfied or not lower than the lowest point.
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone(MemoryFormat::Contiguous);
      bracket_gtd[high_pos] = gtd_new;
      if (bracket_f[0] <= bracket_f[1])
        low_pos = 0, high_pos = 1;
      else
        low_pos = 1, high_pos = 0;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        // The Wolfe conditions are satisfied.
        done = true;
      } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
        // The old high becomes the new low.
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      // The new point becomes the new low.
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone(MemoryFormat::Contiguous);
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
}

Tensor gather_flat_grad(const std::vector<Tensor>& params) {
  std::vector<Tensor> views;
  views.reserve(params.size());
  for (const auto& p : params)
    views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : zeros({p.numel()}, p.options()));
  return cat(views, 0);
}

void add_grad(const std::vector<Tensor>& params, double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (auto p : params) {
    const int64_t numel = p.numel();
    p.add_(update.narrow(0, offset, numel).view_as(p), step_size);
    offset += numel;
  }
}

int64_t get_int(const ParamState& st, const char* key) {
  auto it = st.find(key);
  return it == st.end() || it->second.is_none() ? 0 : it->second.to_int();
}

}  // namespace

LBFGS::LBFGS(std::vector<Tensor> params, const LBFGSOptions& defaults)
    : LBFGS(detail::single_group(std::move(params), "LBFGS"), defaults) {}

LBFGS::LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& defaults) : Optimizer("LBFGS", to_dict(defaults)) {
  EMBER_CHECK(groups.size() == 1, "LBFGS: doesn't support per-parameter options (parameter groups); got ",
              groups.size(), " groups");
  init_groups(std::move(groups));
}

void LBFGS::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<LBFGSOptions>(options, "LBFGS");
  check_option(o.max_iter > 0, "max_iter value", static_cast<double>(o.max_iter));
  if (o.max_eval) check_option(*o.max_eval > 0, "max_eval value", static_cast<double>(*o.max_eval));
  check_option(o.history_size > 0, "history_size value", static_cast<double>(o.history_size));
  check_option(o.tolerance_grad >= 0, "tolerance_grad value", o.tolerance_grad);
  check_option(o.tolerance_change >= 0, "tolerance_change value", o.tolerance_change);
  EMBER_CHECK(!o.line_search_fn || *o.line_search_fn == "strong_wolfe",
              "LBFGS: only 'strong_wolfe' is supported as line_search_fn, got '", o.line_search_fn.value_or(""), "'");
}

Tensor LBFGS::step(const Closure& closure) {
  EMBER_CHECK(static_cast<bool>(closure),
              "LBFGS: step() needs a closure that re-evaluates the model and returns the loss");
  EMBER_CHECK(param_groups().size() == 1, "LBFGS: doesn't support per-parameter options (parameter groups)");
  NoGradGuard no_grad;
  auto& group = param_groups()[0];
  const auto o = from_dict<LBFGSOptions>(group.options, "LBFGS");
  const int64_t max_eval = o.max_eval.value_or(o.max_iter * 5 / 4);
  const std::vector<Tensor>& params = group.params;

  // The state lives with the first parameter, as in PyTorch.
  ParamState& st = state(params[0]);
  st["func_evals"] = get_int(st, "func_evals");
  st["n_iter"] = get_int(st, "n_iter");

  // Evaluate the initial f(x) and df/dx.
  Tensor orig_loss = run_closure(closure);
  EMBER_CHECK(orig_loss.defined() && orig_loss.numel() == 1, "LBFGS: the closure must return the loss (one element)");
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  st["func_evals"] = st["func_evals"].to_int() + 1;

  Tensor flat_grad = gather_flat_grad(params);
  bool opt_cond = abs_max(flat_grad) <= o.tolerance_grad;
  // Optimal condition.
  if (opt_cond) return orig_loss;

  // Tensors cached in the state (for tracing).
  auto find = [&](const char* key) -> const Value* {
    auto it = st.find(key);
    return it == st.end() || it->second.is_none() ? nullptr : &it->second;
  };
  Tensor d = find("d") ? find("d")->to_tensor() : Tensor();
  double t = find("t") ? find("t")->to_double() : 0;
  std::vector<Tensor> old_dirs = find("old_dirs") ? find("old_dirs")->to_tensor_list() : std::vector<Tensor>{};
  std::vector<Tensor> old_stps = find("old_stps") ? find("old_stps")->to_tensor_list() : std::vector<Tensor>{};
  std::vector<double> ro = find("ro") ? find("ro")->to_double_list() : std::vector<double>{};
  double H_diag = find("H_diag") ? find("H_diag")->to_double() : 1;
  Tensor prev_flat_grad = find("prev_flat_grad") ? find("prev_flat_grad")->to_tensor() : Tensor();
  double prev_loss = find("prev_loss") ? find("prev_loss")->to_double() : 0;

  int64_t n_iter = 0;
  // Optimize for a max of max_iter iterations.
  while (n_iter < o.max_iter) {
    // Keep track of the number of iterations.
    n_iter += 1;
    const int64_t state_n_iter = st["n_iter"].to_int() + 1;
    st["n_iter"] = state_n_iter;

    // Compute the gradient descent direction.
    if (state_n_iter == 1) {
      d = flat_grad.neg();
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      H_diag = 1;
    } else {
      // Do the L-BFGS update (update memory).
      Tensor y = flat_grad.sub(prev_flat_grad);
      Tensor s = d.mul(t);
      const double ys = dot(y, s);  // y*s
      if (ys > 1e-10) {
        // Update memory.
        if (static_cast<int64_t>(old_dirs.size()) == o.history_size) {
          // Shift the history by one (limited memory).
          old_dirs.erase(old_dirs.begin());
          old_stps.erase(old_stps.begin());
          ro.erase(ro.begin());
        }
        // Store the new direction/step.
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(1. / ys);
        // Update the scale of the initial Hessian approximation.
        H_diag = ys / dot(y, y);  // (y*y)
      }
      // Compute the approximate (L-BFGS) inverse Hessian multiplied by the gradient.
      const size_t num_old = old_dirs.size();
      if (!find("al")) st["al"] = std::vector<double>(static_cast<size_t>(o.history_size), 0.0);
      // Lists in an IValue are immutable: al is updated here and stored back below.
      std::vector<double> al = st["al"].to_double_list();
      if (al.size() < num_old) al.resize(num_old, 0.0);
      // Iteration in the L-BFGS loop collapsed to use just one buffer.
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = dot(old_stps[k], q) * ro[k];
        q.add_(old_dirs[k], -al[k]);
      }
      // Multiply by the initial Hessian; r/d is the final direction.
      d = q.mul(H_diag);
      Tensor r = d;
      for (size_t k = 0; k < num_old; ++k) {
        const double be_i = dot(old_dirs[k], r) * ro[k];
        r.add_(old_stps[k], al[k] - be_i);
      }
      st["al"] = al;
    }

    if (!prev_flat_grad.defined())
      prev_flat_grad = flat_grad.clone(MemoryFormat::Contiguous);
    else
      prev_flat_grad.copy_(flat_grad);
    prev_loss = loss;

    // Compute the step length: reset the initial guess for the step size.
    if (state_n_iter == 1)
      t = std::min(1., 1. / flat_grad.abs().sum().item<double>()) * o.lr;
    else
      t = o.lr;

    // Directional derivative.
    const double gtd = dot(flat_grad, d);  // g * d
    // Directional derivative is below tolerance.
    if (gtd > -o.tolerance_change) break;

    // Optional line search: user function.
    int64_t ls_func_evals = 0;
    if (o.line_search_fn) {
      // Perform the line search, using the user function.
      std::vector<Tensor> x_init;
      for (const auto& p : params) x_init.push_back(p.clone(MemoryFormat::Contiguous));
      auto obj_func = [&](double step) -> Evaluation {
        add_grad(params, step, d);
        const double f = run_closure(closure).item<double>();
        Tensor g = gather_flat_grad(params);
        for (size_t k = 0; k < params.size(); ++k) Tensor(params[k]).copy_(x_init[k]);
        return {f, g};
      };
      auto res = strong_wolfe(obj_func, t, d, loss, flat_grad, gtd);
      loss = res.f;
      flat_grad = res.g;
      t = res.t;
      ls_func_evals = res.func_evals;
      add_grad(params, t, d);
      opt_cond = abs_max(flat_grad) <= o.tolerance_grad;
    } else {
      // No line search: simply move with a fixed step.
      add_grad(params, t, d);
      if (n_iter != o.max_iter) {
        // Re-evaluate the function only if not in the last iteration (in a stochastic
        // setting there is no use re-evaluating it).
        loss = run_closure(closure).item<double>();
        flat_grad = gather_flat_grad(params);
        opt_cond = abs_max(flat_grad) <= o.tolerance_grad;
        ls_func_evals = 1;
      }
    }
    // Update the function evaluation count.
    current_evals += ls_func_evals;
    st["func_evals"] = st["func_evals"].to_int() + ls_func_evals;

    // Check conditions.
    if (n_iter == o.max_iter) break;
    if (current_evals >= max_eval) break;
    // Optimal condition.
    if (opt_cond) break;
    // Lack of progress.
    if (abs_max(d.mul(t)) <= o.tolerance_change) break;
    if (std::abs(loss - prev_loss) < o.tolerance_change) break;
  }

  st["d"] = d;
  st["t"] = t;
  st["old_dirs"] = old_dirs;
  st["old_stps"] = old_stps;
  st["ro"] = ro;
  st["H_diag"] = H_diag;
  st["prev_flat_grad"] = prev_flat_grad;
  st["prev_loss"] = prev_loss;
  return orig_loss;
}

}  // namespace ember::optim
