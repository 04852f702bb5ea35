// Optimizer and scheduler state in safetensors files and from PyTorch
// checkpoints (ember/optim/state_io.h).
//
// Note [Optimizer state in safetensors]
// safetensors holds only named tensors plus a string table, so the state is
// split: each state tensor becomes an entry "<prefix>.state.<index>.<key>"
// (list elements "...<key>.<i>"), and one metadata entry "<prefix>" holds JSON
//   {"format": "ember.optim.v1",
//    "state": {"0": {"step": {"tensor": "optimizer.state.0.step"}, ...}, ...},
//    "param_groups": [{"params": [0, 1], "options": {"lr": 0.1, ...}}, ...]}
// Plain values are JSON values: null, true/false, integers, floats (always
// written with a '.' or an exponent so they read back as floats; non-finite
// ones as {"float": "inf"}), strings, arrays of floats; tensors are
// {"tensor": name} and lists of tensors {"tensors": [names]}.
#include "ember/optim/state_io.h"

#include <charconv>
#include <optional>
#include <string>

#include "ember/serialize/safetensors.h"
#include "ember/serialize/torch_load.h"
#include "ember/serialize/torch_save.h"
#include "ember/serialize/json.h"
#include "serialize/memory_budget.h"

namespace ember::optim {

namespace {

namespace json = serialize::json;

constexpr const char* kFormat = "ember.optim.v1";

// `tensor_name` is called for tensors (returns the entry name they are stored
// under); null means tensors are not allowed here.
template <class TensorName>
std::string value_json(const Value& v, const std::string& key, TensorName&& tensor_name) {
  if (v.is_tensor()) return R"({"tensor": )" + json::quote(tensor_name(key, v.to_tensor(), -1)) + "}";
  if (v.is_tensor_list()) {
    std::string s = R"({"tensors": [)";
    const auto& list = v.to_list();
    for (size_t i = 0; i < list.size(); ++i)
      s += (i ? ", " : "") + json::quote(tensor_name(key, list[i].to_tensor(), static_cast<int64_t>(i)));
    return s + "]}";
  }
  return json::plain_to_json(v, "optim::dict_to_json", key);
}

template <class TensorName>
std::string dict_json(const Dict& d, TensorName&& tensor_name) {
  std::string s = "{";
  bool first = true;
  for (const auto& [key, value] : d) {
    s += (first ? "" : ", ") + json::quote(key) + ": " + value_json(value, key, tensor_name);
    first = false;
  }
  return s + "}";
}

// `tensor` looks up a stored tensor by entry name (null: tensors not allowed).
template <class TensorLookup>
Value value_from_json(const IValue& j, const std::string& where, TensorLookup&& tensor) {
  if (j.is_dict()) {
    if (const IValue* name = j.find("tensor")) {
      EMBER_CHECK(name->is_string(), "optim state: '", where, "': a tensor reference must be a string");
      return Value(tensor(name->to_string(), where));
    }
    if (const IValue* names = j.find("tensors")) {
      EMBER_CHECK(names->is_list(), "optim state: '", where, "': 'tensors' must be an array");
      std::vector<Tensor> list;
      for (const auto& n : names->to_list()) {
        EMBER_CHECK(n.is_string(), "optim state: '", where, "': tensor references must be strings");
        list.push_back(tensor(n.to_string(), where));
      }
      return Value(std::move(list));
    }
    EMBER_CHECK(j.find("float"), "optim state: '", where,
                "' is an object that is not a float or tensor reference");
  }
  return json::plain_from_json(j, "optim state", where);
}

template <class TensorLookup>
Dict dict_from_json_value(const IValue& j, const std::string& where, TensorLookup&& tensor) {
  EMBER_CHECK(j.is_dict(), "optim state: '", where, "' must be a JSON object");
  Dict d;
  for (const auto& [key, value] : j.to_dict())
    d[key.to_string()] = value_from_json(value, where + "." + key.to_string(), tensor);
  return d;
}

[[noreturn]] std::string no_tensors(const std::string& key, const Tensor&, int64_t) {
  EMBER_FAIL("optim::dict_to_json: entry '", key, "' holds a tensor; scheduler-style dicts hold plain values");
}
[[noreturn]] Tensor no_tensor_lookup(const std::string&, const std::string& where) {
  EMBER_FAIL("optim state: '", where, "' refers to a tensor where only plain values are allowed");
}

int64_t parse_index(const std::string& s, const std::string& where) {
  int64_t v = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  EMBER_CHECK(res.ec == std::errc() && res.ptr == s.data() + s.size() && !s.empty(), "optim state: '", where,
              "' has a parameter index '", s, "' that is not an integer");
  return v;
}

}  // namespace

std::string dict_to_json(const Dict& dict) { return dict_json(dict, no_tensors); }

Dict dict_from_json(const std::string& text) {
  return dict_from_json_value(json::parse(text, "optim state JSON"), "state", no_tensor_lookup);
}

void write_optimizer_state(const OptimizerStateDict& state, StateDict& tensors, Metadata& metadata,
                           const std::string& prefix) {
  EMBER_CHECK(!metadata.contains(prefix), "optim::write_optimizer_state: the metadata already has an entry '",
              prefix, "'");
  std::string s = std::string(R"({"format": ")") + kFormat + R"(", "state": {)";
  bool first = true;
  for (const auto& [index, param_state] : state.state) {
    const std::string base = prefix + ".state." + std::to_string(index) + ".";
    auto name = [&](const std::string& key, const Tensor& t, int64_t i) {
      std::string n = base + key + (i >= 0 ? "." + std::to_string(i) : "");
      EMBER_CHECK(!tensors.contains(n), "optim::write_optimizer_state: a tensor named '", n, "' already exists");
      tensors.insert(n, t);
      return n;
    };
    s += (first ? "" : ", ") + json::quote(std::to_string(index)) + ": " + dict_json(param_state, name);
    first = false;
  }
  s += R"(}, "param_groups": [)";
  for (size_t g = 0; g < state.param_groups.size(); ++g) {
    const auto& group = state.param_groups[g];
    s += g ? ", {" : "{";
    s += R"("params": [)";
    for (size_t i = 0; i < group.params.size(); ++i) s += (i ? ", " : "") + std::to_string(group.params[i]);
    s += R"(], "options": )" + dict_json(group.options, no_tensors) + "}";
  }
  metadata.insert(prefix, s + "]}");
}

OptimizerStateDict read_optimizer_state(const StateDict& tensors, const Metadata& metadata,
                                        const std::string& prefix) {
  const std::string* text = metadata.find(prefix);
  EMBER_CHECK(text != nullptr, "optim::read_optimizer_state: the metadata has no '", prefix,
              "' entry (not written by ember::save of an optimizer state?)");
  // The JSON tree is bounded like a checkpoint load's (Note [Checkpoint memory
  // budget]): a value per 2 bytes of text would otherwise cost ~50x the text.
  serialize::MemoryBudget budget("optim::read_optimizer_state: '" + prefix + "'", text->size());
  const std::function<void(int64_t)> account = [&](int64_t bytes) {
    if (bytes >= 0) budget.charge(static_cast<uint64_t>(bytes), "the state's JSON values");
    else budget.release(static_cast<uint64_t>(-bytes));
  };
  const IValue root = serialize::run_within(
      budget, [&] { return json::parse(*text, "optimizer state '" + prefix + "'", account); });
  EMBER_CHECK(root.is_dict(), "optim::read_optimizer_state: '", prefix, "' is not a JSON object");
  const IValue* format = root.find("format");
  EMBER_CHECK(format && format->is_string() && format->to_string() == kFormat,
              "optim::read_optimizer_state: '", prefix, "' is not in the format ", kFormat);
  auto lookup = [&](const std::string& name, const std::string& where) {
    const Tensor* t = tensors.find(name);
    EMBER_CHECK(t != nullptr, "optim::read_optimizer_state: '", where, "' refers to tensor '", name,
                "', which is not in the file");
    return *t;
  };
  OptimizerStateDict out;
  const IValue* state = root.find("state");
  EMBER_CHECK(state && state->is_dict(), "optim::read_optimizer_state: missing 'state' object");
  for (const auto& [index, entry] : state->to_dict())
    out.state[parse_index(index.to_string(), "state")] =
        dict_from_json_value(entry, "state." + index.to_string(), lookup);
  const IValue* groups = root.find("param_groups");
  EMBER_CHECK(groups && groups->is_list(), "optim::read_optimizer_state: missing 'param_groups' array");
  for (size_t g = 0; g < groups->to_list().size(); ++g) {
    const IValue& group = groups->to_list()[g];
    const std::string where = "param_groups[" + std::to_string(g) + "]";
    EMBER_CHECK(group.is_dict(), "optim::read_optimizer_state: ", where, " is not an object");
    const IValue* params = group.find("params");
    EMBER_CHECK(params && params->is_list(), "optim::read_optimizer_state: ", where, " has no 'params' array");
    OptimizerStateDict::Group out_group;
    for (const auto& p : params->to_list()) {
      EMBER_CHECK(p.is_int(), "optim::read_optimizer_state: ", where, ".params holds a non-integer");
      out_group.params.push_back(p.to_int());
    }
    const IValue* options = group.find("options");
    EMBER_CHECK(options != nullptr, "optim::read_optimizer_state: ", where, " has no 'options'");
    out_group.options = dict_from_json_value(*options, where + ".options", no_tensor_lookup);
    out.param_groups.push_back(std::move(out_group));
  }
  return out;
}

OptimizerStateDict load_optimizer_state_dict(const std::string& path) {
  // What ember::save wrote to a .pt/.pth path (or torch.save(optimizer.state_dict())).
  if (serialize::is_torch_file(path)) return optimizer_state_dict_from_torch(serialize::load_torch(path));
  Metadata metadata;
  StateDict tensors = ember::load(path, &metadata);
  return read_optimizer_state(tensors, metadata);
}

void write_scheduler_state(const Dict& state, Metadata& metadata, const std::string& key) {
  EMBER_CHECK(!metadata.contains(key), "optim::write_scheduler_state: the metadata already has an entry '", key, "'");
  metadata.insert(key, dict_to_json(state));
}

Dict read_scheduler_state(const Metadata& metadata, const std::string& key) {
  const std::string* text = metadata.find(key);
  EMBER_CHECK(text != nullptr, "optim::read_scheduler_state: the metadata has no '", key, "' entry");
  return dict_from_json(*text);
}

// ---- PyTorch checkpoints ----

namespace {

// A torch value as optimizer state holds it (lists of numbers as lists of
// floats, lists of tensors); nullopt where there is no equivalent.
std::optional<Value> value_from_torch(const IValue& v) {
  if (v.is_dict()) return std::nullopt;
  if (!v.is_sequence()) return v;
  const auto& items = v.to_list();
  bool all_tensors = !items.empty(), all_numbers = true;
  for (const auto& item : items) {
    all_tensors = all_tensors && item.is_tensor();
    all_numbers = all_numbers && item.is_number();
  }
  if (all_tensors) return Value(v.to_tensor_list());
  if (all_numbers) return Value(v.to_double_list());
  return std::nullopt;
}

void flatten_into(Dict& out, const std::string& prefix, const IValue& dict) {
  for (const auto& [key, value] : dict.to_dict()) {
    const std::string name = prefix + (key.is_string() ? key.to_string() : std::to_string(key.to_int()));
    if (auto v = value_from_torch(value)) {
      out[name] = std::move(*v);
    } else if (value.is_list() || value.is_tuple()) {
      const auto& items = value.to_list();
      for (size_t i = 0; i < items.size(); ++i)
        if (items[i].is_dict()) flatten_into(out, name + "." + std::to_string(i) + ".", items[i]);
    }
  }
}

}  // namespace

Dict dict_from_torch(const IValue& value) {
  EMBER_CHECK(value.is_dict(), "optim::dict_from_torch: expected a dict, got a ", value.type_name());
  Dict out;
  flatten_into(out, "", value);
  return out;
}

OptimizerStateDict optimizer_state_dict_from_torch(const IValue& value) {
  const char* who = "optim::optimizer_state_dict_from_torch";
  EMBER_CHECK(value.is_dict(), who, ": expected the dict of optimizer.state_dict(), got a ", value.type_name());
  const IValue* state = value.find("state");
  const IValue* groups = value.find("param_groups");
  EMBER_CHECK(state && state->is_dict() && groups && groups->is_list(), who,
              ": expected a dict with 'state' (dict) and 'param_groups' (list)");
  OptimizerStateDict out;
  for (const auto& [index, entry] : state->to_dict()) {
    EMBER_CHECK(index.is_int(), who, ": state keys must be parameter indices, got a ", index.type_name());
    EMBER_CHECK(entry.is_dict(), who, ": the state of parameter ", index.to_int(), " is a ", entry.type_name());
    ParamState s;
    for (const auto& [key, v] : entry.to_dict()) {
      EMBER_CHECK(key.is_string(), who, ": state keys of parameter ", index.to_int(), " must be strings");
      auto converted = value_from_torch(v);
      EMBER_CHECK(converted.has_value(), who, ": state '", key.to_string(), "' of parameter ", index.to_int(),
                  " is a ", v.type_name(), " that optimizer state cannot hold");
      s[key.to_string()] = std::move(*converted);
    }
    out.state[index.to_int()] = std::move(s);
  }
  for (const auto& group : groups->to_list()) {
    EMBER_CHECK(group.is_dict(), who, ": a param_groups entry is a ", group.type_name());
    OptimizerStateDict::Group g;
    for (const auto& [key, v] : group.to_dict()) {
      EMBER_CHECK(key.is_string(), who, ": param_groups keys must be strings");
      if (key.to_string() == "params") {
        for (const auto& id : v.to_list()) g.params.push_back(id.to_int());
        continue;
      }
      // Options with no plain-value equivalent (none in torch.optim) are skipped.
      if (auto converted = value_from_torch(v); converted && !converted->is_tensor() && !converted->is_tensor_list())
        g.options[key.to_string()] = std::move(*converted);
    }
    out.param_groups.push_back(std::move(g));
  }
  return out;
}

IValue optimizer_state_dict_to_torch(const OptimizerStateDict& state) {
  // torch.optim's layout: per-parameter state under int keys, then the groups
  // with their options (lists as tuples: betas, etas, step_sizes are tuples in
  // torch.optim) and "params" last, as Optimizer.state_dict() packs them.
  IDict per_param;
  per_param.reserve(state.state.size());
  for (const auto& [index, entries] : state.state) {
    IDict s;
    s.reserve(entries.size());
    for (const auto& [key, v] : entries) s.insert(key, v);
    per_param.insert(index, IValue::dict(std::move(s)));
  }
  std::vector<IValue> groups;
  groups.reserve(state.param_groups.size());
  for (const auto& g : state.param_groups) {
    IDict d;
    d.reserve(g.options.size() + 1);
    for (const auto& [key, v] : g.options) d.insert(key, v.is_list() ? IValue::tuple(v.to_list()) : v);
    d.insert("params", IValue(g.params));
    groups.push_back(IValue::dict(std::move(d)));
  }
  IDict out;
  out.insert("state", IValue::dict(std::move(per_param)));
  out.insert("param_groups", IValue::list(std::move(groups)));
  return IValue::dict(std::move(out));
}

}  // namespace ember::optim

namespace ember {

void save_torch(const std::string& path, const optim::OptimizerStateDict& state) {
  save_torch(path, optim::optimizer_state_dict_to_torch(state));
}

void save(const std::string& path, const optim::OptimizerStateDict& state, const Metadata& metadata) {
  if (serialize::is_torch_checkpoint_path(path)) {
    // Note [save by extension]: torch.save(optimizer.state_dict(), path).
    EMBER_CHECK(metadata.empty(), "save: ", path, ": a PyTorch checkpoint (.pt/.pth) has no place for safetensors metadata (",
                metadata.size(), " entries); use a .safetensors path");
    save_torch(path, state);
    return;
  }
  StateDict tensors;
  Metadata meta = metadata;
  optim::write_optimizer_state(state, tensors, meta);
  save(path, tensors, meta);
}

}  // namespace ember
