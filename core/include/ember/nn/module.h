#pragma once
// nn::Module: the base of every layer, as PyTorch's. A module owns named
// parameters, buffers and child modules; names compose into PyTorch's
// state_dict keys ("features.0.weight"). Concrete modules are written as
// `FooImpl : Module` with a forward() and wrapped in a `Foo` holder
// (EMBER_MODULE), so that user code reads like PyTorch's C++ frontend:
//
//   nn::Linear fc(nn::LinearOptions{.in = 784, .out = 10});   // or nn::Linear fc(784, 10)
//   Tensor y = fc(x);                                          // runs hooks, then forward
//   fc->weight                                                 // members through ->
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"

namespace ember::nn {

class Module;

// What load_state_dict(strict=false) could not match.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

// Forward hooks see the tensor arguments of a call (modules whose forward
// takes tensors): a pre-hook may replace inputs; a post-hook may replace the
// output (by assigning to it).
using ForwardPreHook = std::function<void(Module&, std::vector<Tensor>& inputs)>;
using ForwardHook = std::function<void(Module&, const std::vector<Tensor>& inputs, Tensor& output)>;

class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string type_name = "Module") : type_name_(std::move(type_name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The class name used when printing ("Linear").
  const std::string& name() const { return type_name_; }
  // Parametrizations rename a module "ParametrizedLinear", as PyTorch does.
  void set_name(std::string type_name) { type_name_ = std::move(type_name); }

  // ---- registration (names must be unique and non-empty, without '.') ----
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor, bool persistent = true);
  // The same, binding `member` (the field of the concrete module that forward()
  // reads, e.g. &weight) to the name: *member is set to the tensor now and
  // whenever the module's tensor of that name is replaced, and
  // parametrizations (nn/utils/parametrize.h) store the parametrized value
  // there before each forward. Modules are neither copied nor moved, so the
  // pointer stays valid. Every module that owns tensors should bind them.
  Tensor& register_parameter(std::string name, Tensor tensor, Tensor* member, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor, Tensor* member, bool persistent = true);
  // The member bound to `name`, or nullptr.
  Tensor* bound_member(const std::string& name) const;
  // Removes a parameter, buffer or submodule (Python's delattr); a binding is
  // kept (re-registering the name assigns the member again).
  void unregister(const std::string& name);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    add_child(std::move(name), module);
    return module;
  }
  // A holder (nn::Linear...): `fc = register_module("fc", nn::Linear(3, 4));`
  template <class Holder>
    requires requires(const Holder& h) {
      typename Holder::ImplType;
      h.ptr();
    }
  Holder register_module(std::string name, Holder holder) {
    add_child(std::move(name), holder.ptr());
    return holder;
  }
  // Replaces a registered child (e.g. swapping a layer of a pretrained model).
  void replace_module(const std::string& name, std::shared_ptr<Module> module);

  // ---- traversal (PyTorch's order and key naming) ----
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::shared_ptr<Module>> named_children() const;
  // All modules, this one first (key ""), depth first.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  OrderedDict<std::shared_ptr<Module>> named_modules(const std::string& prefix = "",
                                                                  bool include_self = true);

  // ---- modes and conversions ----
  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  // Converts parameters and buffers in place (their identity is kept, so an
  // optimizer built before still sees them). Floating point only for dtype;
  // memory_format applies to 4-d (channels_last) and 5-d (channels_last_3d) tensors.
  void to(DType dtype);
  void to(Device device);
  void to(MemoryFormat format);
  void zero_grad(bool set_to_none = true);
  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const std::string&, Module&)>& fn);

  // ---- state ----
  // Parameters and persistent buffers, detached, keyed like PyTorch's.
  OrderedDict<Tensor> state_dict() const;
  // Copies values in (no gradient recorded). strict: missing or unexpected
  // keys are an error listing them; shape mismatches are always errors.
  IncompatibleKeys load_state_dict(const OrderedDict<Tensor>& state, bool strict = true);
  // Names of this module's own buffers that a checkpoint may lack without them
  // counting as missing (they keep their value): BatchNorm's num_batches_tracked,
  // which checkpoints written before PyTorch 0.4.1 do not have.
  virtual std::vector<std::string> optional_state_keys() const { return {}; }

  // ---- hooks ----
  uint64_t register_forward_pre_hook(ForwardPreHook hook);
  uint64_t register_forward_hook(ForwardHook hook);
  void remove_hook(uint64_t handle);
  const std::vector<std::pair<uint64_t, ForwardPreHook>>& forward_pre_hooks() const { return pre_hooks_; }
  const std::vector<std::pair<uint64_t, ForwardHook>>& forward_hooks() const { return post_hooks_; }
  // Setup steps run before every forward called through a holder (or a
  // Sequential), whatever forward's signature, before the pre-hooks:
  // parametrizations compute the members forward() reads here. remove_hook
  // removes them too.
  uint64_t register_forward_setup(std::function<void(Module&)> fn);
  void run_forward_setup();
  bool has_forward_setup() const { return !setups_.empty(); }

  // ---- printing ----
  // One line about this module's own configuration, e.g.
  // "Linear(in_features=3, out_features=4, bias=true)"; children are printed
  // by operator<< below it, as PyTorch's repr.
  virtual void pretty_print(std::ostream& os) const { os << type_name_ << "()"; }
  std::string str() const;

  // Parameters/buffers of this module only, by name (undefined Tensor slots
  // are allowed for optional parameters, e.g. bias=false).
  const OrderedDict<Tensor>& own_parameters() const { return parameters_; }
  const OrderedDict<Tensor>& own_buffers() const { return buffers_; }

 protected:
  bool training_ = true;

 private:
  void add_child(std::string name, std::shared_ptr<Module> child);
  void check_name(const std::string& name, const char* what) const;
  void collect(const std::string& prefix, bool params, bool recurse, bool persistent_only,
               OrderedDict<Tensor>& out) const;

  std::string type_name_;
  OrderedDict<Tensor> parameters_;
  OrderedDict<Tensor> buffers_;
  std::vector<std::string> non_persistent_;
  OrderedDict<std::shared_ptr<Module>> children_;
  std::vector<std::pair<uint64_t, ForwardPreHook>> pre_hooks_;
  std::vector<std::pair<uint64_t, ForwardHook>> post_hooks_;
  std::vector<std::pair<uint64_t, std::function<void(Module&)>>> setups_;
  std::vector<std::pair<std::string, Tensor*>> members_;
};

std::ostream& operator<<(std::ostream& os, const Module& module);

namespace detail {
template <class T>
concept HasOptions = requires { typename T::Options; };
template <class T>
struct options_of {
  struct type {};
};
template <HasOptions T>
struct options_of<T> {
  using type = typename T::Options;
};

// Runs the module's forward setup (any signature), then calls forward through
// the module's hooks when every argument is a Tensor and forward returns one
// Tensor; otherwise calls forward directly.
template <class Impl, class... Args>
decltype(auto) call_forward(Impl& impl, Args&&... args) {
  constexpr bool hookable = (std::is_same_v<std::decay_t<Args>, Tensor> && ...) &&
                            std::is_same_v<decltype(impl.forward(std::forward<Args>(args)...)), Tensor>;
  if (impl.has_forward_setup()) impl.run_forward_setup();
  if constexpr (hookable && sizeof...(Args) > 0) {
    if (impl.forward_pre_hooks().empty() && impl.forward_hooks().empty())
      return impl.forward(std::forward<Args>(args)...);
    std::vector<Tensor> inputs{args...};
    for (auto& [id, hook] : impl.forward_pre_hooks()) hook(impl, inputs);
    Tensor out = [&]<size_t... I>(std::index_sequence<I...>) {
      return impl.forward(inputs[I]...);
    }(std::index_sequence_for<Args...>{});
    for (auto& [id, hook] : impl.forward_hooks()) hook(impl, inputs, out);
    return out;
  } else {
    return impl.forward(std::forward<Args>(args)...);
  }
}
}  // namespace detail

// Shared-ownership handle to a module implementation (PyTorch's ModuleHolder).
template <class Impl>
class ModuleHolder {
 public:
  using ImplType = Impl;
  // Default construction builds a default module when Impl allows it.
  ModuleHolder()
    requires std::is_default_constructible_v<Impl>
      : impl_(std::make_shared<Impl>()) {}
  ModuleHolder(std::nullptr_t) {}
  ModuleHolder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  // From the module's options struct (designated initializers: {.in = 3, ...}).
  ModuleHolder(const typename detail::options_of<Impl>::type& options)
    requires detail::HasOptions<Impl>
      : impl_(std::make_shared<Impl>(options)) {}
  template <class First, class... Rest>
    requires(!std::is_same_v<std::decay_t<First>, ModuleHolder> &&
             !std::is_same_v<std::decay_t<First>, std::shared_ptr<Impl>> &&
             !std::is_same_v<std::decay_t<First>, std::nullptr_t> &&
             std::is_constructible_v<Impl, First, Rest...>)
  explicit ModuleHolder(First&& first, Rest&&... rest)
      : impl_(std::make_shared<Impl>(std::forward<First>(first), std::forward<Rest>(rest)...)) {}

  Impl* operator->() const { return checked(); }
  Impl& operator*() const { return *checked(); }
  Impl* get() const { return checked(); }
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }
  explicit operator bool() const { return impl_ != nullptr; }
  operator std::shared_ptr<Module>() const { return impl_; }

  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    return detail::call_forward(*checked(), std::forward<Args>(args)...);
  }

 private:
  Impl* checked() const {
    EMBER_CHECK(impl_ != nullptr, "nn: accessing an empty module holder (constructed with nullptr)");
    return impl_.get();
  }
  std::shared_ptr<Impl> impl_;
};

}  // namespace ember::nn

// Declares `Name` as the holder of `NameImpl`.
#define EMBER_MODULE(Name)                                   \
  class Name : public ::ember::nn::ModuleHolder<Name##Impl> { \
   public:                                                   \
    using ::ember::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }
