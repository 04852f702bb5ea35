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
#include <cmath>
#include <string>

#include "ember/serialize/safetensors.h"
#include "ember/serialize/json.h"
#include "serialize/memory_budget.h"

namespace ember::optim {

namespace {

namespace json = serialize::json;

constexpr const char* kFormat = "ember.optim.v1";

std::string float_literal(double v) {
  if (std::isnan(v)) return R"({"float": "nan"})";
  if (std::isinf(v)) return v > 0 ? R"({"float": "inf"})" : R"({"float": "-inf"})";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// `tensor_name` is called for tensors (returns the entry name they are stored
// under); null means tensors are not allowed here.
template <class TensorName>
std::string value_json(const Value& v, const std::string& key, TensorName&& tensor_name) {
  if (v.is_none()) return "null";
  if (v.is_bool()) return v.to_bool() ? "true" : "false";
  if (v.is_int()) return std::to_string(v.to_int());
  if (v.is_double()) return float_literal(v.to_double());
  if (v.is_string()) return json::quote(v.to_string());
  if (v.is_double_list()) {
    std::string s = "[";
    for (size_t i = 0; i < v.to_double_list().size(); ++i) s += (i ? ", " : "") + float_literal(v.to_double_list()[i]);
    return s + "]";
  }
  if (v.is_tensor()) return R"({"tensor": )" + json::quote(tensor_name(key, v.to_tensor(), -1)) + "}";
  std::string s = R"({"tensors": [)";
  const auto& list = v.to_tensor_list();
  for (size_t i = 0; i < list.size(); ++i)
    s += (i ? ", " : "") + json::quote(tensor_name(key, list[i], static_cast<int64_t>(i)));
  return s + "]}";
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

double float_from_json(const json::Value& j, const std::string& where) {
  if (j.kind == json::Value::Kind::Number) return j.number;
  const json::Value* f = j.kind == json::Value::Kind::Object ? j.get("float") : nullptr;
  EMBER_CHECK(f && f->kind == json::Value::Kind::String, "optim state: '", where, "' is not a float");
  if (f->string == "nan") return NAN;
  if (f->string == "inf") return INFINITY;
  EMBER_CHECK(f->string == "-inf", "optim state: '", where, "' holds an unknown float '", f->string, "'");
  return -INFINITY;
}

// `tensor` looks up a stored tensor by entry name (null: tensors not allowed).
template <class TensorLookup>
Value value_from_json(const json::Value& j, const std::string& where, TensorLookup&& tensor) {
  using K = json::Value::Kind;
  switch (j.kind) {
    case K::Null: return Value();
    case K::Bool: return Value(j.boolean);
    case K::Number: return j.is_integer ? Value(j.integer) : Value(j.number);
    case K::String: return Value(j.string);
    case K::Array: {
      std::vector<double> values;
      for (size_t i = 0; i < j.array.size(); ++i)
        values.push_back(float_from_json(j.array[i], where + "[" + std::to_string(i) + "]"));
      return Value(std::move(values));
    }
    case K::Object: {
      if (j.get("float")) return Value(float_from_json(j, where));
      if (const json::Value* name = j.get("tensor")) {
        EMBER_CHECK(name->kind == K::String, "optim state: '", where, "': a tensor reference must be a string");
        return Value(tensor(name->string, where));
      }
      if (const json::Value* names = j.get("tensors")) {
        EMBER_CHECK(names->kind == K::Array, "optim state: '", where, "': 'tensors' must be an array");
        std::vector<Tensor> list;
        for (const auto& n : names->array) {
          EMBER_CHECK(n.kind == K::String, "optim state: '", where, "': tensor references must be strings");
          list.push_back(tensor(n.string, where));
        }
        return Value(std::move(list));
      }
      EMBER_FAIL("optim state: '", where, "' is an object that is not a float or tensor reference");
    }
  }
  return Value();
}

template <class TensorLookup>
Dict dict_from_json_value(const json::Value& j, const std::string& where, TensorLookup&& tensor) {
  EMBER_CHECK(j.kind == json::Value::Kind::Object, "optim state: '", where, "' must be a JSON object");
  Dict d;
  for (const auto& [key, value] : j.object) d[key] = value_from_json(value, where + "." + key, tensor);
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
  using K = json::Value::Kind;
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
  const json::Value root = serialize::run_within(
      budget, [&] { return json::parse(*text, "optimizer state '" + prefix + "'", account); });
  EMBER_CHECK(root.kind == K::Object, "optim::read_optimizer_state: '", prefix, "' is not a JSON object");
  const json::Value* format = root.get("format");
  EMBER_CHECK(format && format->kind == K::String && format->string == kFormat,
              "optim::read_optimizer_state: '", prefix, "' is not in the format ", kFormat);
  auto lookup = [&](const std::string& name, const std::string& where) {
    const Tensor* t = tensors.find(name);
    EMBER_CHECK(t != nullptr, "optim::read_optimizer_state: '", where, "' refers to tensor '", name,
                "', which is not in the file");
    return *t;
  };
  OptimizerStateDict out;
  const json::Value* state = root.get("state");
  EMBER_CHECK(state && state->kind == K::Object, "optim::read_optimizer_state: missing 'state' object");
  for (const auto& [index, entry] : state->object)
    out.state[parse_index(index, "state")] = dict_from_json_value(entry, "state." + index, lookup);
  const json::Value* groups = root.get("param_groups");
  EMBER_CHECK(groups && groups->kind == K::Array, "optim::read_optimizer_state: missing 'param_groups' array");
  for (size_t g = 0; g < groups->array.size(); ++g) {
    const json::Value& group = groups->array[g];
    const std::string where = "param_groups[" + std::to_string(g) + "]";
    EMBER_CHECK(group.kind == K::Object, "optim::read_optimizer_state: ", where, " is not an object");
    const json::Value* params = group.get("params");
    EMBER_CHECK(params && params->kind == K::Array, "optim::read_optimizer_state: ", where, " has no 'params' array");
    OptimizerStateDict::Group out_group;
    for (const auto& p : params->array) {
      EMBER_CHECK(p.kind == K::Number && p.is_integer, "optim::read_optimizer_state: ", where,
                  ".params holds a non-integer");
      out_group.params.push_back(p.integer);
    }
    const json::Value* options = group.get("options");
    EMBER_CHECK(options != nullptr, "optim::read_optimizer_state: ", where, " has no 'options'");
    out_group.options = dict_from_json_value(*options, where + ".options", no_tensor_lookup);
    out.param_groups.push_back(std::move(out_group));
  }
  return out;
}

OptimizerStateDict load_optimizer_state_dict(const std::string& path) {
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

using serialize::IValue;

// A torch value as an optim::Value; nullopt where there is no equivalent.
std::optional<Value> value_from_torch(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return Value();
    case IValue::Tag::Bool: return Value(v.to_bool());
    case IValue::Tag::Int: return Value(v.to_int());
    case IValue::Tag::Double: return Value(v.to_double());
    case IValue::Tag::String: return Value(v.to_string());
    case IValue::Tag::Tensor: return Value(v.to_tensor());
    case IValue::Tag::List:
    case IValue::Tag::Tuple: {
      const auto& items = v.to_list();
      bool all_tensors = !items.empty(), all_numbers = true;
      for (const auto& item : items) {
        all_tensors = all_tensors && item.is_tensor();
        all_numbers = all_numbers && (item.is_int() || item.is_double());
      }
      if (all_tensors) {
        std::vector<Tensor> list;
        for (const auto& item : items) list.push_back(item.to_tensor());
        return Value(std::move(list));
      }
      if (all_numbers) {
        std::vector<double> list;
        for (const auto& item : items) list.push_back(item.to_double());
        return Value(std::move(list));
      }
      return std::nullopt;
    }
    case IValue::Tag::Dict: return std::nullopt;
  }
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

}  // namespace ember::optim

namespace ember {

void save(const std::string& path, const optim::OptimizerStateDict& state, const Metadata& metadata) {
  StateDict tensors;
  Metadata meta = metadata;
  optim::write_optimizer_state(state, tensors, meta);
  save(path, tensors, meta);
}

}  // namespace ember
