// nn::Module: registration, traversal, modes, conversions, state, hooks, printing.
#include "ember/nn/module.h"

#include <algorithm>
#include <atomic>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/module_printer.h"

namespace ember::nn {

namespace {
std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}
uint64_t next_hook_handle() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}
}  // namespace

void Module::check_name(const std::string& name, const char* what) const {
  EMBER_CHECK(!name.empty(), type_name_, ": ", what, " name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, type_name_, ": ", what, " name '", name,
              "' must not contain '.'");
  EMBER_CHECK(!parameters_.contains(name) && !buffers_.contains(name) && !children_.contains(name), type_name_,
              ": attribute '", name, "' already exists");
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name(name, "parameter");
  if (tensor.defined() && requires_grad) tensor.requires_grad_(true);
  if (Tensor* member = bound_member(name)) *member = tensor;
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor, bool persistent) {
  check_name(name, "buffer");
  if (!persistent) non_persistent_.push_back(name);
  if (Tensor* member = bound_member(name)) *member = tensor;
  return buffers_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, Tensor* member, bool requires_grad) {
  EMBER_CHECK(member != nullptr, type_name_, ": register_parameter('", name, "'): member is null");
  check_name(name, "parameter");
  std::erase_if(members_, [&](const auto& m) { return m.first == name; });
  members_.emplace_back(name, member);
  return register_parameter(std::move(name), std::move(tensor), requires_grad);
}

Tensor& Module::register_buffer(std::string name, Tensor tensor, Tensor* member, bool persistent) {
  EMBER_CHECK(member != nullptr, type_name_, ": register_buffer('", name, "'): member is null");
  check_name(name, "buffer");
  std::erase_if(members_, [&](const auto& m) { return m.first == name; });
  members_.emplace_back(name, member);
  return register_buffer(std::move(name), std::move(tensor), persistent);
}

Tensor* Module::bound_member(const std::string& name) const {
  for (const auto& [n, member] : members_)
    if (n == name) return member;
  return nullptr;
}

void Module::unregister(const std::string& name) {
  const bool found = parameters_.erase(name) || buffers_.erase(name) || children_.erase(name);
  EMBER_CHECK(found, type_name_, ": no parameter, buffer or submodule named '", name, "'");
  std::erase(non_persistent_, name);
}

void Module::add_child(std::string name, std::shared_ptr<Module> child) {
  check_name(name, "submodule");
  EMBER_CHECK(child != nullptr, type_name_, ": submodule '", name, "' is null");
  children_.insert(std::move(name), std::move(child));
}

void Module::replace_module(const std::string& name, std::shared_ptr<Module> module) {
  EMBER_CHECK(children_.contains(name), type_name_, ": no submodule named '", name, "' to replace");
  EMBER_CHECK(module != nullptr, type_name_, ": replacement for '", name, "' is null");
  children_.insert(name, std::move(module));
}

void Module::collect(const std::string& prefix, bool params, bool recurse, bool persistent_only,
                     OrderedDict<Tensor>& out) const {
  const auto& own = params ? parameters_ : buffers_;
  for (const auto& [name, t] : own) {
    if (!t.defined()) continue;
    if (persistent_only && !params &&
        std::find(non_persistent_.begin(), non_persistent_.end(), name) != non_persistent_.end())
      continue;
    const std::string key = join(prefix, name);
    // A tensor shared by two modules is listed once (PyTorch's memo).
    bool seen = false;
    for (const auto& [k, v] : out)
      if (v.is_same(t)) seen = true;
    if (!seen) out.insert(key, t);
  }
  if (!recurse) return;
  for (const auto& [name, child] : children_) child->collect(join(prefix, name), params, true, persistent_only, out);
}

OrderedDict<Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<Tensor> out;
  collect("", true, recurse, false, out);
  return out;
}
std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }
OrderedDict<Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<Tensor> out;
  collect("", false, recurse, false, out);
  return out;
}
std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }
OrderedDict<std::shared_ptr<Module>> Module::named_children() const { return children_; }

OrderedDict<std::shared_ptr<Module>> Module::named_modules(const std::string& prefix, bool include_self) {
  OrderedDict<std::shared_ptr<Module>> out;
  std::vector<const Module*> seen;
  std::function<void(const std::string&, const std::shared_ptr<Module>&)> visit =
      [&](const std::string& p, const std::shared_ptr<Module>& m) {
        if (std::find(seen.begin(), seen.end(), m.get()) != seen.end()) return;
        seen.push_back(m.get());
        out.insert(p, m);
        for (const auto& [name, child] : m->children_) visit(join(p, name), child);
      };
  if (include_self) {
    // Modules are owned by shared_ptr (holders, register_module); a module on
    // the stack has no shared owner and is listed through a non-owning alias.
    std::shared_ptr<Module> self = weak_from_this().lock();
    if (!self) self = std::shared_ptr<Module>(std::shared_ptr<Module>(), this);
    visit(prefix, self);
  } else {
    seen.push_back(this);
    for (const auto& [name, child] : children_) visit(join(prefix, name), child);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) {
  return named_modules("", include_self).values();
}

void Module::train(bool on) {
  training_ = on;
  for (const auto& [name, child] : children_) child->train(on);
}

namespace {
// Rewrites `t` in place with `converted`'s data, keeping the tensor's identity
// (and autograd flags): modules' members and optimizers hold the same tensor.
// A gradient is converted along.
void assign_data(Tensor& t, const Tensor& converted) {
  if (converted.is_same(t)) return;
  if (t.grad().defined()) {
    const Tensor& g = t.grad();
    t.mutable_grad() = g.to(TensorOptions(converted.dtype()).device(converted.device()));
  }
  t.set_data(converted);
}
}  // namespace

void Module::to(DType dtype) {
  EMBER_CHECK(is_floating_point(dtype) || is_complex(dtype), type_name_,
              ".to: nn.Module.to only accepts floating point or complex dtypes, got ", dtype);
  NoGradGuard no_grad;
  for (auto& [name, t] : parameters_)
    if (t.defined() && (t.is_floating_point() || t.is_complex())) assign_data(t, t.to(dtype));
  for (auto& [name, t] : buffers_)
    if (t.defined() && (t.is_floating_point() || t.is_complex())) assign_data(t, t.to(dtype));
  for (const auto& [name, child] : children_) child->to(dtype);
}

void Module::to(Device device) {
  NoGradGuard no_grad;
  for (auto& [name, t] : parameters_)
    if (t.defined()) assign_data(t, t.to(device));
  for (auto& [name, t] : buffers_)
    if (t.defined()) assign_data(t, t.to(device));
  for (const auto& [name, child] : children_) child->to(device);
}

void Module::to(MemoryFormat format) {
  NoGradGuard no_grad;
  auto convert = [&](Tensor& t) {
    if (!t.defined()) return;
    const bool applies = (format == MemoryFormat::ChannelsLast && t.dim() == 4) ||
                         (format == MemoryFormat::ChannelsLast3d && t.dim() == 5) ||
                         format == MemoryFormat::Contiguous;
    if (applies && !t.is_contiguous(format)) assign_data(t, t.contiguous(format));
  };
  for (auto& [name, t] : parameters_) convert(t);
  for (auto& [name, t] : buffers_) convert(t);
  for (const auto& [name, child] : children_) child->to(format);
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.mutable_grad() = Tensor();
    } else {
      Tensor& g = p.mutable_grad();
      g = g.detach();
      NoGradGuard no_grad;
      g.zero_();
    }
  }
}

void Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& [name, child] : children_) child->apply(fn);
  fn(*this);
}

void Module::apply(const std::function<void(const std::string&, Module&)>& fn) {
  for (auto& [name, m] : named_modules()) fn(name, *m);
}

OrderedDict<Tensor> Module::state_dict() const {
  OrderedDict<Tensor> out;
  std::function<void(const Module&, const std::string&)> visit = [&](const Module& m, const std::string& prefix) {
    for (const auto& [name, t] : m.parameters_)
      if (t.defined()) out.insert(join(prefix, name), t.detach());
    for (const auto& [name, t] : m.buffers_)
      if (t.defined() && std::find(m.non_persistent_.begin(), m.non_persistent_.end(), name) == m.non_persistent_.end())
        out.insert(join(prefix, name), t.detach());
    for (const auto& [name, child] : m.children_) visit(*child, join(prefix, name));
  };
  visit(*this, "");
  return out;
}

IncompatibleKeys Module::load_state_dict(const OrderedDict<Tensor>& state, bool strict) {
  OrderedDict<Tensor> own = state_dict();
  IncompatibleKeys result;
  std::vector<std::string> mismatches;
  std::vector<std::string> optional;
  for (const auto& [prefix, m] : const_cast<Module*>(this)->named_modules())
    for (const auto& k : m->optional_state_keys()) optional.push_back(prefix.empty() ? k : prefix + "." + k);
  for (const auto& [key, t] : own)
    if (!state.contains(key) && std::find(optional.begin(), optional.end(), key) == optional.end())
      result.missing_keys.push_back(key);
  for (const auto& [key, t] : state)
    if (!own.contains(key)) result.unexpected_keys.push_back(key);
  for (const auto& [key, dst] : own) {
    const Tensor* src = state.find(key);
    if (!src) continue;
    if (src->sizes() != dst.sizes())
      mismatches.push_back(ember::detail::concat("size mismatch for ", key, ": copying a param with shape ", src->sizes(),
                                          " from checkpoint, the shape in current model is ", dst.sizes(), "."));
  }
  auto list = [](const std::vector<std::string>& keys) {
    std::string s;
    for (size_t i = 0; i < keys.size(); ++i) s += (i ? ", \"" : "\"") + keys[i] + "\"";
    return s;
  };
  std::string errors;
  if (strict && !result.missing_keys.empty()) errors += "\n\tMissing key(s) in state_dict: " + list(result.missing_keys) + ".";
  if (strict && !result.unexpected_keys.empty())
    errors += "\n\tUnexpected key(s) in state_dict: " + list(result.unexpected_keys) + ".";
  for (const auto& m : mismatches) errors += "\n\t" + m;
  EMBER_CHECK(errors.empty(), "Error(s) in loading state_dict for ", type_name_, ":", errors);
  NoGradGuard no_grad;
  for (auto& [key, dst] : own)
    if (const Tensor* src = state.find(key)) dst.copy_(*src);  // dst shares storage with the module's tensor
  // A quantized tensor takes the checkpoint's scale and zero point(s) with its
  // integers; copy_ gave them to dst, a detached alias, so the module's own
  // tensor (and the member bound to it) gets them here.
  for (const auto& [prefix, m] : const_cast<Module*>(this)->named_modules())
    for (auto* tensors : {&m->parameters_, &m->buffers_})
      for (auto& [name, t] : *tensors)
        if (t.defined() && t.is_quantized())
          if (const Tensor* src = state.find(join(prefix, name)); src && src->is_quantized())
            t.impl()->set_quantizer(src->impl()->quantizer());
  return result;
}

uint64_t Module::register_forward_pre_hook(ForwardPreHook hook) {
  const uint64_t id = next_hook_handle();
  pre_hooks_.emplace_back(id, std::move(hook));
  return id;
}
uint64_t Module::register_forward_hook(ForwardHook hook) {
  const uint64_t id = next_hook_handle();
  post_hooks_.emplace_back(id, std::move(hook));
  return id;
}
void Module::remove_hook(uint64_t handle) {
  std::erase_if(pre_hooks_, [&](const auto& h) { return h.first == handle; });
  std::erase_if(post_hooks_, [&](const auto& h) { return h.first == handle; });
  std::erase_if(setups_, [&](const auto& h) { return h.first == handle; });
}
uint64_t Module::register_forward_setup(std::function<void(Module&)> fn) {
  const uint64_t id = next_hook_handle();
  setups_.emplace_back(id, std::move(fn));
  return id;
}
void Module::run_forward_setup() {
  for (auto& [id, fn] : setups_) fn(*this);
}


std::string Module::str() const {
  std::ostringstream ss;
  ss << *this;
  return ss.str();
}

namespace {
std::atomic<ModulePrinter> installed_printer{nullptr};
}  // namespace

void set_module_printer(ModulePrinter printer) { installed_printer.store(printer); }
ModulePrinter module_printer() { return installed_printer.load(); }

std::ostream& operator<<(std::ostream& os, const Module& module) {
  if (ModulePrinter printer = installed_printer.load()) {
    printer(os, module);
    return os;
  }
  print_module_pytorch_style(os, module);
  return os;
}

void print_module_pytorch_style(std::ostream& os, const Module& module) {
  if (module.named_children().empty()) {
    module.pretty_print(os);
    return;
  }
  // Modules with children print "Name(", the configuration of pretty_print's
  // "Name(config)" on its own line (PyTorch's extra_repr), the children, ")".
  os << module.name();
  std::ostringstream body;
  const auto children = module.named_children();
  body << "(\n";
  {
    std::ostringstream own;
    module.pretty_print(own);
    const std::string line = own.str();
    const size_t open = line.find('(');
    if (open != std::string::npos && line.size() > open + 2 && line.back() == ')' &&
        line.find('\n') == std::string::npos)
      body << "  " << line.substr(open + 1, line.size() - open - 2) << "\n";
  }
  for (const auto& [name, child] : children) {
    std::ostringstream c;
    print_module_pytorch_style(c, *child);
    std::string text = c.str();
    // Indent nested lines by two spaces.
    std::string indented;
    for (char ch : text) {
      indented += ch;
      if (ch == '\n') indented += "  ";
    }
    body << "  (" << name << "): " << indented << "\n";
  }
  body << ")";
  os << body.str();
}

}  // namespace ember::nn
