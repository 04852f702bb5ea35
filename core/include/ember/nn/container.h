#pragma once
// Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.
#include <functional>
#include <memory>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

// A module whose forward maps one Tensor to one Tensor, type-erased (the
// elements of a Sequential).
class AnyModule {
 public:
  template <class Impl>
    requires std::is_base_of_v<Module, Impl> &&
             requires(Impl& m, const Tensor& x) { { m.forward(x) } -> std::convertible_to<Tensor>; }
  AnyModule(std::shared_ptr<Impl> module)
      : module_(module), forward_([m = module.get()](const Tensor& x) { return detail::call_forward(*m, x); }) {}
  template <class Holder>
    requires requires(const Holder& h) { typename Holder::ImplType; h.ptr(); }
  AnyModule(const Holder& holder) : AnyModule(holder.ptr()) {}

  Tensor forward(const Tensor& x) const { return forward_(x); }
  const std::shared_ptr<Module>& ptr() const { return module_; }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
};

class SequentialImpl : public Module {
 public:
  SequentialImpl() : Module("Sequential") {}
  template <class... Modules>
    requires(sizeof...(Modules) > 0 && (std::is_constructible_v<AnyModule, Modules> && ...))
  explicit SequentialImpl(Modules&&... modules) : Module("Sequential") {
    (push_back(AnyModule(std::forward<Modules>(modules))), ...);
  }
  // Named elements, as Python's Sequential(OrderedDict(...)).
  explicit SequentialImpl(std::vector<std::pair<std::string, AnyModule>> named) : Module("Sequential") {
    for (auto& [name, m] : named) push_back(name, std::move(m));
  }

  void push_back(AnyModule module) { push_back(std::to_string(modules_.size()), std::move(module)); }
  void push_back(const std::string& name, AnyModule module) {
    register_module(name, module.ptr());
    modules_.push_back(std::move(module));
  }
  Tensor forward(Tensor x) const {
    for (const AnyModule& m : modules_) x = m.forward(x);
    return x;
  }
  // Replaces the element registered as `name` (a swap that keeps its
  // position: fuse_modules and prepare_qat exchange layers this way).
  void replace(const std::string& name, AnyModule module);
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  // The elements, callable (libtorch's Sequential iterates AnyModules too).
  std::vector<AnyModule>::const_iterator begin() const { return modules_.begin(); }
  std::vector<AnyModule>::const_iterator end() const { return modules_.end(); }
  std::shared_ptr<Module> operator[](size_t i) const { return at_index(i).ptr(); }
  template <class Impl>
  std::shared_ptr<Impl> ptr(size_t i) const {
    auto p = std::dynamic_pointer_cast<Impl>(at_index(i).ptr());
    EMBER_CHECK(p != nullptr, "Sequential: element ", i, " is a ", at_index(i).ptr()->name(),
                ", not the requested type");
    return p;
  }
  void pretty_print(std::ostream& os) const override { os << "Sequential()"; }

 private:
  const AnyModule& at_index(size_t i) const {
    EMBER_CHECK(i < modules_.size(), "Sequential: index ", i, " out of range for ", modules_.size(), " modules");
    return modules_[i];
  }
  std::vector<AnyModule> modules_;
};
EMBER_MODULE(Sequential);

class ModuleListImpl : public Module {
 public:
  ModuleListImpl() : Module("ModuleList") {}
  template <class... Modules>
    requires(sizeof...(Modules) > 0)
  explicit ModuleListImpl(Modules&&... modules) : Module("ModuleList") {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  void push_back(std::shared_ptr<Module> module) {
    register_module(std::to_string(modules_.size()), module);
    modules_.push_back(std::move(module));
  }
  template <class Holder>
    requires requires(const Holder& h) { typename Holder::ImplType; h.ptr(); }
  void push_back(const Holder& holder) {
    push_back(std::static_pointer_cast<Module>(holder.ptr()));
  }
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> operator[](size_t i) const {
    EMBER_CHECK(i < modules_.size(), "ModuleList: index ", i, " out of range for ", modules_.size(), " modules");
    return modules_[i];
  }
  template <class Impl>
  std::shared_ptr<Impl> ptr(size_t i) const {
    auto p = std::dynamic_pointer_cast<Impl>((*this)[i]);
    EMBER_CHECK(p != nullptr, "ModuleList: element ", i, " is a ", (*this)[i]->name(), ", not the requested type");
    return p;
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  void pretty_print(std::ostream& os) const override { os << "ModuleList()"; }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() : Module("ModuleDict") {}
  void insert(const std::string& key, std::shared_ptr<Module> module) {
    register_module(key, module);
    keys_.push_back(key);
  }
  template <class Holder>
    requires requires(const Holder& h) { typename Holder::ImplType; h.ptr(); }
  void insert(const std::string& key, const Holder& holder) {
    insert(key, std::static_pointer_cast<Module>(holder.ptr()));
  }
  bool contains(const std::string& key) const { return named_children().contains(key); }
  std::shared_ptr<Module> operator[](const std::string& key) const {
    const auto children = named_children();
    EMBER_CHECK(children.contains(key), "ModuleDict: no module named '", key, "'");
    return children.at(key);
  }
  const std::vector<std::string>& keys() const { return keys_; }
  size_t size() const { return keys_.size(); }
  void pretty_print(std::ostream& os) const override { os << "ModuleDict()"; }

 private:
  std::vector<std::string> keys_;
};
EMBER_MODULE(ModuleDict);

class ParameterListImpl : public Module {
 public:
  ParameterListImpl() : Module("ParameterList") {}
  explicit ParameterListImpl(const std::vector<Tensor>& params) : Module("ParameterList") {
    for (const Tensor& p : params) append(p);
  }
  Tensor& append(Tensor param) { return register_parameter(std::to_string(size_++), std::move(param)); }
  size_t size() const { return size_; }
  Tensor operator[](size_t i) const {
    EMBER_CHECK(i < size_, "ParameterList: index ", i, " out of range for ", size_, " parameters");
    return own_parameters().at(std::to_string(i));
  }
  void pretty_print(std::ostream& os) const override;

 private:
  size_t size_ = 0;
};
EMBER_MODULE(ParameterList);

class ParameterDictImpl : public Module {
 public:
  ParameterDictImpl() : Module("ParameterDict") {}
  Tensor& insert(const std::string& key, Tensor param) { return register_parameter(key, std::move(param)); }
  bool contains(const std::string& key) const { return own_parameters().contains(key); }
  Tensor operator[](const std::string& key) const {
    EMBER_CHECK(contains(key), "ParameterDict: no parameter named '", key, "'");
    return own_parameters().at(key);
  }
  std::vector<std::string> keys() const { return own_parameters().keys(); }
  size_t size() const { return own_parameters().size(); }
  void pretty_print(std::ostream& os) const override;
};
EMBER_MODULE(ParameterDict);

}  // namespace ember::nn
