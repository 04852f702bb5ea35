#pragma once
// <ember/torch.h>, part 5a: torch::serialize::OutputArchive and InputArchive
// as objects, in libtorch's archive format: a TorchScript archive of one
// module whose parameters, buffers and attributes are the written keys and
// whose submodules are the nested archives (Note [Writing libtorch module
// archives] in core/src/serialize/torchscript_save.cpp). What one writes,
// libtorch's InputArchive reads, and the other way round.
//
//   torch::serialize::OutputArchive archive;
//   archive.write("weights", tensor);             // a parameter
//   archive.write("running", buffer, true);       // a buffer
//   archive.write("epoch", c10::IValue(3));       // an attribute: None, int, float, bool, str, Tensor,
//                                                 // tuples and lists of them
//   torch::serialize::OutputArchive nested;
//   archive.write("child", nested);               // a submodule
//   archive << module;  archive << optimizer;     // what torch::save(value, ...) does
//   archive.save_to("file.pt");  archive.save_to(stream);  archive.save_to(writer_function);
//
//   torch::serialize::InputArchive in;
//   in.load_from("file.pt");  in.load_from(stream);  in.load_from(data, size);  (optional device)
//   in.read("weights", tensor);  in.try_read("epoch", ivalue);  in.read("child", nested_in);
//   in >> module;  in >> optimizer;
//
// Reading a tensor into a defined one replaces its data in place
// (Tensor::set_data, under no-grad), as libtorch's set_, so a module's
// parameters keep their identity (an optimizer holding them sees the loaded
// values). A missing key is an ember::Error naming it with its path
// ("No such serialized tensor 'fc1.weight'"), as libtorch's c10::Error.
#include <cstdint>
#include <functional>
#include <istream>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/ivalue.h"
#include "ember/nn/module.h"
#include "ember/nn/torchscript.h"
#include "ember/optim/libtorch_archive.h"
#include "ember/optim/optimizer.h"
#include "ember/serialize/torch_load.h"
#include "ember/serialize/torch_save.h"
#include "ember/torch/tensor.h"

namespace c10 {
// libtorch programs spell archive attributes c10::IValue; Ember's IValue has
// c10's constructors and accessors (isInt, toTensor, ...).
using IValue = ::ember::IValue;
}  // namespace c10

namespace torch {
using IValue = ::ember::IValue;

namespace serialize {

class OutputArchive {
 public:
  OutputArchive() = default;
  OutputArchive(OutputArchive&&) = default;
  OutputArchive& operator=(OutputArchive&&) = default;
  OutputArchive(const OutputArchive&) = delete;  // as libtorch's
  OutputArchive& operator=(const OutputArchive&) = delete;

  // A parameter, or with is_buffer a buffer; writing a key again replaces it.
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false) {
    EMBER_CHECK(tensor.defined(), "OutputArchive::write: tensor '", key, "' is undefined");
    erase(key);
    (is_buffer ? tree_.buffers : tree_.parameters).emplace_back(key, tensor);
  }
  // An attribute; a tensor IValue is an attribute too (libtorch's register_attribute).
  void write(const std::string& key, const IValue& value) {
    erase(key);
    tree_.attributes.emplace_back(key, value);
  }
  // A submodule: the nested archive as it is now (later writes to it are not seen).
  void write(const std::string& key, OutputArchive& nested) {
    erase(key);
    tree_.child_names.push_back(key);
    tree_.children.push_back(nested.tree_);
  }
  template <class... Ts>
  void operator()(Ts&&... ts) {
    write(std::forward<Ts>(ts)...);
  }

  void save_to(const std::string& filename) const { ::ember::serialize::save_torchscript_module(filename, tree_); }
  void save_to(std::ostream& stream) const {
    const std::string bytes = ::ember::serialize::save_torchscript_module_bytes(tree_);
    stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EMBER_CHECK(stream.good(), "OutputArchive::save_to: error writing ", bytes.size(), " bytes to the stream");
  }
  void save_to(const std::function<size_t(const void*, size_t)>& func) const {
    const std::string bytes = ::ember::serialize::save_torchscript_module_bytes(tree_);
    const size_t n = func(bytes.data(), bytes.size());
    EMBER_CHECK(n == bytes.size(), "OutputArchive::save_to: the writer function took ", n, " of ", bytes.size(),
                " bytes");
  }

  // The module tree (Ember's; libtorch's OutputArchive has no such accessor).
  const ::ember::serialize::ScriptModuleTree& tree() const { return tree_; }
  ::ember::serialize::ScriptModuleTree& tree() { return tree_; }

 private:
  void erase(const std::string& key) {
    auto drop = [&](auto& list) { std::erase_if(list, [&](const auto& item) { return item.first == key; }); };
    drop(tree_.parameters);
    drop(tree_.buffers);
    drop(tree_.attributes);
    for (size_t i = 0; i < tree_.child_names.size(); ++i) {
      if (tree_.child_names[i] != key) continue;
      tree_.child_names.erase(tree_.child_names.begin() + static_cast<std::ptrdiff_t>(i));
      tree_.children.erase(tree_.children.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }

  ::ember::serialize::ScriptModuleTree tree_;
};

class InputArchive {
 public:
  InputArchive() = default;

  void load_from(const std::string& filename, std::optional<Device> device = std::nullopt) {
    bool script = false;
    IValue root = ::ember::serialize::load_torch(filename, &script);
    set_root(std::move(root), script, filename, device);
  }
  void load_from(std::istream& stream, std::optional<Device> device = std::nullopt) {
    const std::string bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
    load_from(bytes.data(), bytes.size(), device);
  }
  void load_from(const char* data, size_t size, std::optional<Device> device = std::nullopt) {
    bool script = false;
    IValue root = ::ember::serialize::load_torch_bytes(data, size, &script);
    set_root(std::move(root), script, "<memory>", device);
  }
  // libtorch's reader-function form: read(pos, buffer, n) returns the bytes read.
  void load_from(const std::function<size_t(uint64_t, void*, size_t)>& read_func,
                 const std::function<size_t(void)>& size_func, std::optional<Device> device = std::nullopt) {
    std::string bytes(size_func(), '\0');
    const size_t n = read_func(0, bytes.data(), bytes.size());
    EMBER_CHECK(n == bytes.size(), "InputArchive::load_from: the reader function gave ", n, " of ", bytes.size(),
                " bytes");
    load_from(bytes.data(), bytes.size(), device);
  }

  bool try_read(const std::string& key, IValue& value) {
    const IValue* v = find(key);
    if (v == nullptr) return false;
    value = v->is_tensor() ? IValue(placed(v->to_tensor())) : *v;
    return true;
  }
  void read(const std::string& key, IValue& value) {
    EMBER_CHECK(try_read(key, value), "No such serialized IValue '", prefix_, key, "'");
  }
  // is_buffer is accepted and, as in libtorch 1.13, not checked.
  bool try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/ = false) {
    const IValue* v = find(key);
    if (v == nullptr || !v->is_tensor()) return false;
    Tensor read = placed(v->to_tensor());
    if (tensor.defined()) {
      ::ember::NoGradGuard no_grad;
      tensor.set_data(read);
    } else {
      tensor = std::move(read);
    }
    return true;
  }
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false) {
    EMBER_CHECK(try_read(key, tensor, is_buffer), "No such serialized tensor '", prefix_, key, "'");
  }
  bool try_read(const std::string& key, InputArchive& nested) {
    const IValue* v = find(key);
    if (v == nullptr || !v->is_dict()) return false;  // submodules are the tree's dicts
    nested.root_ = *v;
    nested.prefix_ = prefix_ + key + ".";
    nested.source_ = source_;
    nested.device_ = device_;
    return true;
  }
  void read(const std::string& key, InputArchive& nested) {
    EMBER_CHECK(try_read(key, nested), "No such serialized submodule: '", prefix_, key, "'");
  }
  template <class... Ts>
  void operator()(Ts&&... ts) {
    read(std::forward<Ts>(ts)...);
  }

  // The names of this level's parameters, buffers, attributes and submodules.
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    if (root_.is_dict())
      for (const auto& [k, v] : root_.to_dict()) out.push_back(k.to_string());
    return out;
  }

  // The attribute tree (serialize::load_torch's value for a TorchScript
  // archive) and the file it came from, for Ember's readers.
  const IValue& tree() const { return root_; }
  const std::string& source() const { return source_; }

 private:
  void set_root(IValue root, bool script, const std::string& source, std::optional<Device> device) {
    EMBER_CHECK(script, "InputArchive::load_from: ", source,
                " is not a TorchScript archive (torch::save and OutputArchive write one; a torch.save "
                "checkpoint loads with torch::load(value, path))");
    root_ = std::move(root);
    source_ = source;
    prefix_.clear();
    device_ = device;
  }
  const IValue* find(const std::string& key) const {
    EMBER_CHECK(root_.is_dict(), "InputArchive: nothing loaded (call load_from first)");
    return root_.find(key);
  }
  Tensor placed(const Tensor& t) const { return device_ ? t.to(*device_) : t; }

  IValue root_;
  std::string source_, prefix_;
  std::optional<Device> device_;
};

// ---- what torch::save / torch::load put into and take out of archives ----

namespace detail {
template <class M>
concept ModuleHandle = requires(const M& m) {
  { m->state_dict() } -> std::same_as<::ember::OrderedDict<Tensor>>;
  m->load_state_dict(m->state_dict());
};
}  // namespace detail

// A module: its parameters, buffers and submodules (libtorch's Module::save).
inline OutputArchive& operator<<(OutputArchive& archive, const ::ember::nn::Module& module) {
  ::ember::serialize::ScriptModuleTree tree = ::ember::nn::script_module_tree(module);
  for (auto& [k, t] : tree.parameters) archive.write(k, t);
  for (auto& [k, t] : tree.buffers) archive.write(k, t, true);
  for (auto& [k, v] : tree.attributes) archive.write(k, v);
  for (size_t i = 0; i < tree.children.size(); ++i) {
    OutputArchive child;
    child.tree() = std::move(tree.children[i]);
    archive.write(tree.child_names[i], child);
  }
  return archive;
}
template <detail::ModuleHandle M>
OutputArchive& operator<<(OutputArchive& archive, const M& module) {
  return archive << *module;
}
// libtorch's Module::load: every parameter and buffer, by its path, into the
// module's own tensors (in place); a missing one is an error naming it.
inline InputArchive& operator>>(InputArchive& archive, ::ember::nn::Module& module) {
  // named_parameters/named_buffers hand out the module's own tensors
  // (state_dict's are detached copies, which set_data would leave the module without).
  ::ember::OrderedDict<Tensor> targets = module.named_parameters();
  for (const auto& [path, tensor] : module.named_buffers()) targets.insert(path, tensor);
  for (const auto& [path, tensor] : targets) {
    InputArchive level = archive;
    size_t start = 0;
    for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
      InputArchive child;
      level.read(path.substr(start, dot - start), child);
      level = std::move(child);
      start = dot + 1;
    }
    Tensor target = tensor;
    level.read(path.substr(start), target);
  }
  return archive;
}
template <detail::ModuleHandle M>
InputArchive& operator>>(InputArchive& archive, M& module) {
  return archive >> *module;
}

// An optimizer: libtorch's optimizer archive (ember/optim/libtorch_archive.h).
inline OutputArchive& operator<<(OutputArchive& archive, const ::ember::optim::Optimizer& optimizer) {
  ::ember::serialize::ScriptModuleTree tree = ::ember::optim::libtorch_optimizer_tree(optimizer, "torch::save");
  for (auto& [k, v] : tree.attributes) archive.write(k, v);
  for (size_t i = 0; i < tree.children.size(); ++i) {
    OutputArchive child;
    child.tree() = std::move(tree.children[i]);
    archive.write(tree.child_names[i], child);
  }
  return archive;
}
inline InputArchive& operator>>(InputArchive& archive, ::ember::optim::Optimizer& optimizer) {
  ::ember::optim::load_libtorch_optimizer(optimizer, archive.tree(), "torch::load: " + archive.source());
  return archive;
}

// A tensor is the archive's "0"; a list of tensors "0", "1", ... (libtorch's).
inline OutputArchive& operator<<(OutputArchive& archive, const Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}
inline OutputArchive& operator<<(OutputArchive& archive, const std::vector<Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) archive.write(std::to_string(i), tensors[i]);
  return archive;
}
inline InputArchive& operator>>(InputArchive& archive, Tensor& tensor) {
  archive.read("0", tensor);
  return archive;
}
inline InputArchive& operator>>(InputArchive& archive, std::vector<Tensor>& tensors) {
  std::vector<Tensor> out;
  for (size_t i = 0;; ++i) {
    Tensor t;
    if (!archive.try_read(std::to_string(i), t)) break;
    out.push_back(std::move(t));
  }
  tensors = std::move(out);
  return archive;
}

}  // namespace serialize
}  // namespace torch
