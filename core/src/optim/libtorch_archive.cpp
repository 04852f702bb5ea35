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
    };
  }();
  auto it = formats.find(optimizer);
  return it == formats.end() ? nullptr : &it->second;
}

const Format& require_format(const Optimizer& optimizer, const char* who) {
  const Format* f = format_of(optimizer.name());
  EMBER_CHECK(f != nullptr, who, ": libtorch has no archive format for optimizer ", optimizer.name(),
              " (libtorch's optimizers: SGD, Adam, AdamW, RMSprop, Adagrad)");
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

}  // namespace

void save_libtorch_optimizer(const std::string& path, const Optimizer& optimizer) {
  const std::string who = "save_libtorch_optimizer: " + path;
  const Format& f = require_format(optimizer, "save_libtorch_optimizer");
  serialize::ScriptModuleTree root, state, groups;
  int64_t index = 0;
  for (const ParamGroup& group : optimizer.param_groups()) {
    for (const Tensor& p : group.params) {
      if (const ParamState* st = optimizer.find_state(p)) {
        if (auto tree = param_state(*st, f, who, index)) {
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
  serialize::save_torchscript_module(path, root);
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
      const bool ok = field.kind == Kind::Bool ? v.is_bool()
                      : field.kind == Kind::Betas ? v.is_tuple() && v.to_tuple().size() == 2
                                                  : v.is_number();
      EMBER_CHECK(ok, what, ": option '", field.name, "' of group ", g, " is a ", v.type_name());
    }
    for (int64_t j = 0; j < n; ++j, ++index) {
      const IValue& key = attr(group, "params/" + std::to_string(j), "'" + gname + "'");
      EMBER_CHECK(key.is_string(), what, ": '", gname, "/params/", j, "' is a ", key.type_name(), ", not a str");
      const IValue* st = saved_state.find(key.to_string());
      if (st == nullptr) continue;  // no state yet (or SGD without momentum)
      const std::string where = "the state of parameter " + std::to_string(index) + " ('" + key.to_string() + "')";
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
