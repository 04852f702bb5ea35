// libtorch's optimizer archives (ember/optim/libtorch_archive.h).
#include "ember/optim/libtorch_archive.h"

#include <cmath>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "ember/core/error.h"
#include "ember/ops/factories.h"
#include "ember/serialize/torch_load.h"
#include "ember/serialize/torch_save.h"
#include "common.h"

namespace ember::optim {

namespace {

// How one field of libtorch's Options or ParamState is stored.
enum class Kind {
  Float,           // double option
  Bool,            // bool option
  Betas,           // Tuple[float, float]
  Int,             // int64 state that Ember keeps as an int (RMSprop's step)
  StepTensor,      // int64 in libtorch, a float32 0-dim tensor in Ember (Adam's step)
  RequiredTensor,  // a tensor every state has
  OptionalTensor,  // a tensor libtorch leaves out when undefined (max_exp_avg_sq)
  OptionalInt,     // c10::optional<int64_t> option: an int or None (LBFGS's max_eval)
  OptionalString,  // c10::optional<std::string> option: a str or None (LBFGS's line_search_fn)
};
struct Field {
  const char* name;
  Kind kind;
};
struct Format {
  std::vector<Field> options, state;
};

// libtorch 1.13's Options::serialize and ParamState::serialize, field by field.
const Format* format_of(const std::string& optimizer) {
  static const std::unordered_map<std::string, Format> formats = [] {
    const Format adam{{{"lr", Kind::Float},
                       {"betas", Kind::Betas},
                       {"eps", Kind::Float},
                       {"weight_decay", Kind::Float},
                       {"amsgrad", Kind::Bool}},
                      {{"step", Kind::StepTensor},
                       {"exp_avg", Kind::RequiredTensor},
                       {"exp_avg_sq", Kind::RequiredTensor},
                       {"max_exp_avg_sq", Kind::OptionalTensor}}};
    return std::unordered_map<std::string, Format>{
        {"SGD",
         {{{"lr", Kind::Float},
           {"momentum", Kind::Float},
           {"dampening", Kind::Float},
           {"weight_decay", Kind::Float},
           {"nesterov", Kind::Bool}},
          {{"momentum_buffer", Kind::RequiredTensor}}}},
        {"Adam", adam},
        {"AdamW", adam},
        {"RMSprop",
         {{{"lr", Kind::Float},
           {"alpha", Kind::Float},
           {"eps", Kind::Float},
           {"weight_decay", Kind::Float},
           {"momentum", Kind::Float},
           {"centered", Kind::Bool}},
          {{"step", Kind::Int},
           {"square_avg", Kind::RequiredTensor},
           {"momentum_buffer", Kind::OptionalTensor},
           {"grad_avg", Kind::OptionalTensor}}}},
        {"Adagrad",
         {{{"lr", Kind::Float},
           {"lr_decay", Kind::Float},
           {"weight_decay", Kind::Float},
           {"initial_accumulator_value", Kind::Float},
           {"eps", Kind::Float}},
          {{"step", Kind::StepTensor}, {"sum", Kind::RequiredTensor}}}},
        // LBFGS's state is not field by field (lbfgs_state below).
        {"LBFGS",
         {{{"lr", Kind::Float},
           {"max_iter", Kind::Int},
           {"max_eval", Kind::OptionalInt},
           {"tolerance_grad", Kind::Float},
           {"tolerance_change", Kind::Float},
           {"history_size", Kind::Int},
           {"line_search_fn", Kind::OptionalString}},
          {}}},
    };
  }();
  auto it = formats.find(optimizer);
  return it == formats.end() ? nullptr : &it->second;
}

const Format& require_format(const Optimizer& optimizer, const char* who) {
  const Format* f = format_of(optimizer.name());
  EMBER_CHECK(f != nullptr, who, ": libtorch has no archive format for optimizer ", optimizer.name(),
              " (libtorch's optimizers: SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS)");
  return *f;
}

// How libtorch names a parameter in its archive: its TensorImpl's address.
std::string tensor_key(const Tensor& t) {
  std::ostringstream s;
  s << static_cast<const void*>(t.impl());
  return s.str();
}

Tensor int64_scalar(int64_t v) { return scalar_tensor(Scalar(v), TensorOptions(kInt64)); }

// One parameter's libtorch ParamState, or nullopt when it has none of the
// required tensors (SGD without momentum keeps no state in libtorch).
std::optional<serialize::ScriptModuleTree> param_state(const ParamState& st, const Format& f, const std::string& who,
                                                       int64_t index) {
  serialize::ScriptModuleTree tree;
  size_t required = 0, present = 0;
  for (const Field& field : f.state) {
    auto it = st.find(field.name);
    const bool has = it != st.end() && !it->second.is_none();
    if (field.kind == Kind::RequiredTensor) {
      ++required;
      present += has ? 1 : 0;
    }
    if (!has) continue;
    const Value& v = it->second;
    switch (field.kind) {
      case Kind::Int:
      case Kind::StepTensor:
        tree.attributes.emplace_back(field.name, static_cast<int64_t>(std::llround(v.to_double())));
        break;
      case Kind::RequiredTensor:
      case Kind::OptionalTensor:
        EMBER_CHECK(v.is_tensor(), who, ": state '", field.name, "' of parameter ", index, " is a ", v.type_name(),
                    ", not a Tensor");
        tree.attributes.emplace_back(field.name, v.to_tensor());
        break;
      default:
        break;
    }
  }
  if (present == 0) return std::nullopt;
  EMBER_CHECK(present == required, who, ": the state of parameter ", index, " lacks some of libtorch's tensors");
  return tree;
}

// Note [LBFGS archives]: libtorch's LBFGSParamState (kept for the first
// parameter, as Ember's and torch.optim's) holds func_evals and n_iter (int),
// t and prev_loss (float), d, H_diag and prev_flat_grad (Tensors; H_diag a
// 0-dim one), old_dirs, old_stps and ro (List[Tensor]; ro's 0-dim) and, once
// set, al (List[Tensor] of 0-dim tensors). Ember keeps H_diag, ro and al as
// doubles: they are written as 0-dim tensors of the parameters' dtype and read
// back with item().
serialize::ScriptModuleTree lbfgs_state(const ParamState& st, const std::string& who) {
  auto find = [&](const char* key) -> const Value* {
    auto it = st.find(key);
    return it == st.end() || it->second.is_none() ? nullptr : &it->second;
  };
  const Value* d = find("d");
  const DType dtype = d != nullptr ? d->to_tensor().dtype() : kFloat32;
  auto scalar = [&](double v) { return scalar_tensor(Scalar(v), TensorOptions(dtype)); };
  auto scalars = [&](const char* key) {
    std::vector<IValue> out;
    if (const Value* v = find(key))
      for (double x : v->to_double_list()) out.emplace_back(scalar(x));
    return IValue::list(std::move(out));
  };
  auto tensors = [&](const char* key) {
    std::vector<IValue> out;
    if (const Value* v = find(key))
      for (const Tensor& t : v->to_tensor_list()) out.emplace_back(t);
    return IValue::list(std::move(out));
  };
  serialize::ScriptModuleTree tree;
  auto& a = tree.attributes;
  a.emplace_back("func_evals", find("func_evals") ? find("func_evals")->to_int() : 0);
  a.emplace_back("n_iter", find("n_iter") ? find("n_iter")->to_int() : 0);
  // libtorch reads t and prev_loss unconditionally.
  a.emplace_back("t", find("t") ? find("t")->to_double() : 0.0);
  a.emplace_back("prev_loss", find("prev_loss") ? find("prev_loss")->to_double() : 0.0);
  for (const char* key : {"d", "H_diag", "prev_flat_grad"}) {
    const Value* v = find(key);
    if (v == nullptr) continue;  // libtorch leaves out undefined tensors
    if (v->is_tensor()) a.emplace_back(key, v->to_tensor());
    else if (v->is_number()) a.emplace_back(key, scalar(v->to_double()));
    else EMBER_FAIL(who, ": LBFGS state '", key, "' is a ", v->type_name());
  }
  a.emplace_back("old_dirs", tensors("old_dirs"));
  a.emplace_back("old_stps", tensors("old_stps"));
  a.emplace_back("ro", scalars("ro"));
  if (find("al")) a.emplace_back("al", scalars("al"));
  return tree;
}

ParamState lbfgs_state_from(const IValue& st, const std::string& what, const std::string& where) {
  EMBER_CHECK(st.is_dict(), what, ": ", where, " is a ", st.type_name(), ", not a module");
  auto get = [&](const char* key, bool required) -> const IValue* {
    const IValue* v = st.find(key);
    EMBER_CHECK(v != nullptr || !required, what, ": ", where, " has no '", key, "'");
    return v;
  };
  ParamState ps;
  for (const char* key : {"func_evals", "n_iter"}) {
    const IValue* v = get(key, true);
    EMBER_CHECK(v->is_int(), what, ": ", where, "'s '", key, "' is a ", v->type_name(), ", not an int");
    ps[key] = v->to_int();
  }
  for (const char* key : {"t", "prev_loss"}) {
    const IValue* v = get(key, true);
    EMBER_CHECK(v->is_number(), what, ": ", where, "'s '", key, "' is a ", v->type_name(), ", not a float");
    ps[key] = v->to_double();
  }
  for (const char* key : {"d", "prev_flat_grad", "H_diag"}) {
    const IValue* v = get(key, false);
    if (v == nullptr) continue;
    EMBER_CHECK(v->is_tensor(), what, ": ", where, "'s '", key, "' is a ", v->type_name(), ", not a Tensor");
    if (std::string(key) == "H_diag") ps[key] = v->to_tensor().item<double>();
    else ps[key] = v->to_tensor();
  }
  for (const char* key : {"old_dirs", "old_stps", "ro", "al"}) {
    const IValue* v = get(key, std::string(key) != "al");
    if (v == nullptr) continue;
    EMBER_CHECK(v->is_list(), what, ": ", where, "'s '", key, "' is a ", v->type_name(), ", not a list");
    const bool scalars = std::string(key) == "ro" || std::string(key) == "al";
    std::vector<double> values;
    std::vector<Tensor> tensors;
    for (const IValue& item : v->to_list()) {
      // libtorch sizes al to history_size and fills only the first entries:
      // the rest are undefined tensors (None); every step overwrites them.
      if (std::string(key) == "al" && item.is_none()) {
        values.push_back(0.0);
        continue;
      }
      EMBER_CHECK(item.is_tensor(), what, ": ", where, "'s '", key, "' holds a ", item.type_name());
      if (scalars) values.push_back(item.to_tensor().item<double>());
      else tensors.push_back(item.to_tensor());
    }
    if (scalars) ps[key] = values;
    else ps[key] = tensors;
  }
  return ps;
}

}  // namespace

serialize::ScriptModuleTree libtorch_optimizer_tree(const Optimizer& optimizer, const std::string& who) {
  const Format& f = require_format(optimizer, "save_libtorch_optimizer");
  const bool lbfgs = optimizer.name() == "LBFGS";
  serialize::ScriptModuleTree root, state, groups;
  int64_t index = 0;
  for (const ParamGroup& group : optimizer.param_groups()) {
    for (const Tensor& p : group.params) {
      if (const ParamState* st = optimizer.find_state(p)) {
        std::optional<serialize::ScriptModuleTree> tree =
            lbfgs ? std::optional(lbfgs_state(*st, who)) : param_state(*st, f, who, index);
        if (tree) {
          state.child_names.push_back(tensor_key(p));
          state.children.push_back(std::move(*tree));
        }
      }
      ++index;
    }
  }
  groups.parameters.emplace_back("param_groups/size",
                                 int64_scalar(static_cast<int64_t>(optimizer.param_groups().size())));
  for (size_t g = 0; g < optimizer.param_groups().size(); ++g) {
    const ParamGroup& group = optimizer.param_groups()[g];
    serialize::ScriptModuleTree tree, options;
    tree.parameters.emplace_back("params/size", int64_scalar(static_cast<int64_t>(group.params.size())));
    for (size_t j = 0; j < group.params.size(); ++j)
      tree.attributes.emplace_back("params/" + std::to_string(j), tensor_key(group.params[j]));
    for (const Field& field : f.options) {
      const Value& v = group.at(field.name);
      switch (field.kind) {
        case Kind::Float: options.attributes.emplace_back(field.name, v.to_double()); break;
        case Kind::Bool: options.attributes.emplace_back(field.name, v.to_bool()); break;
        case Kind::Int: options.attributes.emplace_back(field.name, v.to_int()); break;
        case Kind::OptionalInt:
          // libtorch's LBFGS constructor fills an unset max_eval with max_iter * 5 / 4.
          options.attributes.emplace_back(field.name,
                                          v.is_none() ? group.at("max_iter").to_int() * 5 / 4 : v.to_int());
          break;
        case Kind::OptionalString:
          options.attributes.emplace_back(field.name, v.is_none() ? IValue() : IValue(v.to_string()));
          break;
        case Kind::Betas: {
          const std::vector<double> b = v.to_double_list();
          EMBER_CHECK(b.size() == 2, who, ": option 'betas' of group ", g, " has ", b.size(), " values, not 2");
          options.attributes.emplace_back(field.name, IValue::tuple({b[0], b[1]}));
          break;
        }
        default: break;
      }
    }
    tree.child_names.push_back("options");
    tree.children.push_back(std::move(options));
    groups.child_names.push_back("param_groups/" + std::to_string(g));
    groups.children.push_back(std::move(tree));
  }
  root.attributes.emplace_back("pytorch_version", "1.5.0");
  root.child_names = {"state", "param_groups"};
  root.children.push_back(std::move(state));
  root.children.push_back(std::move(groups));
  return root;
}

void save_libtorch_optimizer(const std::string& path, const Optimizer& optimizer) {
  serialize::save_torchscript_module(path, libtorch_optimizer_tree(optimizer, "save_libtorch_optimizer: " + path));
}

void load_libtorch_optimizer(Optimizer& optimizer, const std::string& path) {
  bool script = false;
  IValue archive = serialize::load_torch(path, &script);
  EMBER_CHECK(script, "load_libtorch_optimizer: ", path,
              ": not a TorchScript archive (libtorch's torch::save(optimizer) writes one)");
  load_libtorch_optimizer(optimizer, archive, "load_libtorch_optimizer: " + path);
}

void load_libtorch_optimizer(Optimizer& optimizer, const IValue& archive, const std::string& what) {
  const Format& f = require_format(optimizer, "load_libtorch_optimizer");
  auto attr = [&](const IValue& obj, const std::string& key, const std::string& where) -> const IValue& {
    EMBER_CHECK(obj.is_dict(), what, ": ", where, " is a ", obj.type_name(), ", not a module");
    const IValue* v = obj.find(key);
    EMBER_CHECK(v != nullptr, what, ": ", where, " has no '", key, "' (not a libtorch ", optimizer.name(),
                " archive?)");
    return *v;
  };
  auto size_of = [&](const IValue& obj, const std::string& key, const std::string& where) {
    const IValue& v = attr(obj, key, where);
    EMBER_CHECK(v.is_tensor() && v.to_tensor().numel() == 1, what, ": ", where, "'s '", key,
                "' is not a one-element tensor");
    return v.to_tensor().item<int64_t>();
  };
  const IValue& version = attr(archive, "pytorch_version", "the archive");
  EMBER_CHECK(version.is_string() && version.to_string() == "1.5.0", what, ": pytorch_version ", version,
              " is not libtorch's \"1.5.0\"");
  const IValue& saved_state = attr(archive, "state", "the archive");
  EMBER_CHECK(saved_state.is_dict(), what, ": 'state' is not a module");
  const IValue& groups = attr(archive, "param_groups", "the archive");

  OptimizerStateDict sd = optimizer.state_dict();  // the options stay the optimizer's, as libtorch's
  sd.state.clear();
  const int64_t n_groups = size_of(groups, "param_groups/size", "'param_groups'");
  EMBER_CHECK(n_groups == static_cast<int64_t>(sd.param_groups.size()), what, ": the archive has ", n_groups,
              " parameter groups but the optimizer ", sd.param_groups.size());
  int64_t index = 0;
  for (int64_t g = 0; g < n_groups; ++g) {
    const std::string gname = "param_groups/" + std::to_string(g);
    const IValue& group = attr(groups, gname, "'param_groups'");
    const int64_t n = size_of(group, "params/size", "'" + gname + "'");
    EMBER_CHECK(n == static_cast<int64_t>(sd.param_groups[g].params.size()), what, ": parameter group ", g,
                " has ", n, " parameters in the archive but ", sd.param_groups[g].params.size(), " in the optimizer");
    // The archive's options must be this optimizer's (libtorch fails on a missing one too).
    const IValue& options = attr(group, "options", "'" + gname + "'");
    for (const Field& field : f.options) {
      const IValue& v = attr(options, field.name, "'" + gname + "/options'");
      bool ok = v.is_number();
      if (field.kind == Kind::Bool) ok = v.is_bool();
      if (field.kind == Kind::Betas) ok = v.is_tuple() && v.to_tuple().size() == 2;
      if (field.kind == Kind::Int) ok = v.is_int();
      if (field.kind == Kind::OptionalInt) ok = v.is_int() || v.is_none();
      if (field.kind == Kind::OptionalString) ok = v.is_string() || v.is_none();
      EMBER_CHECK(ok, what, ": option '", field.name, "' of group ", g, " is a ", v.type_name());
    }
    for (int64_t j = 0; j < n; ++j, ++index) {
      const IValue& key = attr(group, "params/" + std::to_string(j), "'" + gname + "'");
      EMBER_CHECK(key.is_string(), what, ": '", gname, "/params/", j, "' is a ", key.type_name(), ", not a str");
      const IValue* st = saved_state.find(key.to_string());
      if (st == nullptr) continue;  // no state yet (or SGD without momentum)
      const std::string where = "the state of parameter " + std::to_string(index) + " ('" + key.to_string() + "')";
      if (f.state.empty()) {  // LBFGS (Note [LBFGS archives])
        sd.state.emplace(index, lbfgs_state_from(*st, what, where));
        continue;
      }
      ParamState ps;
      for (const Field& field : f.state) {
        const IValue* v = st->is_dict() ? st->find(field.name) : nullptr;
        if (v == nullptr) {
          EMBER_CHECK(field.kind == Kind::OptionalTensor, what, ": ", where, " has no '", field.name, "'");
          continue;
        }
        switch (field.kind) {
          case Kind::Int:
            EMBER_CHECK(v->is_int(), what, ": ", where, "'s '", field.name, "' is a ", v->type_name(), ", not an int");
            ps[field.name] = v->to_int();
            break;
          case Kind::StepTensor:
            EMBER_CHECK(v->is_int(), what, ": ", where, "'s '", field.name, "' is a ", v->type_name(), ", not an int");
            ps[field.name] = detail::step_tensor(static_cast<double>(v->to_int()));
            break;
          case Kind::RequiredTensor:
          case Kind::OptionalTensor:
            EMBER_CHECK(v->is_tensor(), what, ": ", where, "'s '", field.name, "' is a ", v->type_name(),
                        ", not a Tensor");
            ps[field.name] = v->to_tensor();
            break;
          default:
            break;
        }
      }
      sd.state.emplace(index, std::move(ps));
    }
  }
  optimizer.load_state_dict(sd);
}

}  // namespace ember::optim
