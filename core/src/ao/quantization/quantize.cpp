#include "ember/ao/quantization/quantize.h"

#include <mutex>
#include <sstream>

#include "convert_entries.h"
#include "ember/ao/nn/quantized/functional_modules.h"
#include "ember/ao/quantization/fused_modules.h"
#include "ember/ao/quantization/qat_modules.h"
#include "ember/ao/quantization/quant_markers.h"
#include "ember/core/error.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/embedding.h"

namespace ember::ao::quantization {

namespace {

constexpr const char* kObserverName = "activation_post_process";

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// Note [Where prepare keeps qconfigs]
// PyTorch stores module.qconfig as an attribute; an Ember module has no
// attribute slots, so the propagated qconfig lives in this registry, keyed by
// module identity (a weak pointer guards against a new module at a freed
// address). convert and prepare_qat read it back with qconfig_of.
struct QConfigRegistry {
  std::mutex mutex;
  std::map<const nn::Module*, std::pair<std::weak_ptr<nn::Module>, std::optional<QConfig>>> entries;

  void set(const std::shared_ptr<nn::Module>& m, std::optional<QConfig> qc) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = entries.begin(); it != entries.end();) it = it->second.first.expired() ? entries.erase(it) : ++it;
    entries[m.get()] = {m, std::move(qc)};
  }
  std::optional<QConfig> get(const nn::Module& m) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(&m);
    if (it == entries.end() || it->second.first.expired()) return std::nullopt;
    return it->second.second;
  }
};
QConfigRegistry& registry() {
  static QConfigRegistry r;
  return r;
}

// PyTorch 1.13's default qconfig propagation list, leaf types (Sequential is
// in it too but never observed itself).
bool observed_type(const nn::Module& m) {
  return dynamic_cast<const nn::Conv1dImpl*>(&m) || dynamic_cast<const nn::Conv2dImpl*>(&m) ||
         dynamic_cast<const nn::Conv3dImpl*>(&m) || dynamic_cast<const nn::ConvTranspose1dImpl*>(&m) ||
         dynamic_cast<const nn::ConvTranspose2dImpl*>(&m) || dynamic_cast<const nn::ConvTranspose3dImpl*>(&m) ||
         dynamic_cast<const nn::LinearImpl*>(&m) || dynamic_cast<const nn::BatchNorm2dImpl*>(&m) ||
         dynamic_cast<const nn::BatchNorm3dImpl*>(&m) || dynamic_cast<const nn::ReLU6Impl*>(&m) ||
         dynamic_cast<const nn::HardswishImpl*>(&m) || dynamic_cast<const nn::ELUImpl*>(&m) ||
         dynamic_cast<const nn::LeakyReLUImpl*>(&m) || dynamic_cast<const nn::LayerNormImpl*>(&m) ||
         dynamic_cast<const nn::GroupNormImpl*>(&m) || dynamic_cast<const nn::InstanceNorm1dImpl*>(&m) ||
         dynamic_cast<const nn::InstanceNorm2dImpl*>(&m) || dynamic_cast<const nn::InstanceNorm3dImpl*>(&m) ||
         dynamic_cast<const nn::DropoutImpl*>(&m) || dynamic_cast<const nn::EmbeddingImpl*>(&m) ||
         dynamic_cast<const nn::EmbeddingBagImpl*>(&m) || dynamic_cast<const nn::PReLUImpl*>(&m) ||
         dynamic_cast<const QuantMarkerImpl*>(&m) || dynamic_cast<const FusedModule*>(&m) ||
         dynamic_cast<const QatModule*>(&m) || dynamic_cast<const ao::nn::quantized::FloatFunctionalImpl*>(&m);
}

bool has_observer(const nn::Module& m) { return m.named_children().contains(kObserverName); }

void propagate(const std::shared_ptr<nn::Module>& m, const std::string& path, const std::optional<QConfig>& inherited,
               const QConfigDict& dict) {
  const auto it = dict.find(path);
  const std::optional<QConfig> qc = it != dict.end() ? it->second : inherited;
  registry().set(m, qc);
  for (const auto& [name, child] : m->named_children()) {
    if (name == kObserverName) continue;
    propagate(child, join(path, name), qc, dict);
  }
}

void attach_observer(nn::Module& m, const QConfig& qc) {
  EMBER_CHECK(static_cast<bool>(qc.activation), "prepare: the qconfig of ", m.name(), " has no activation factory");
  std::shared_ptr<ObserverOrFakeQuantize> obs = qc.activation();
  if (!obs || !obs->has_qparams()) return;
  m.register_module(kObserverName, obs);
  // FloatFunctional calls its observer itself on the result of add/mul/cat
  // (PyTorch's prepare gives it no forward hook either).
  if (auto* ff = dynamic_cast<ao::nn::quantized::FloatFunctionalImpl*>(&m)) {
    ff->activation_post_process = obs;
    return;
  }
  m.register_forward_hook([obs](nn::Module&, const std::vector<Tensor>&, Tensor& out) { out = obs->forward(out); });
}

void add_observers(const std::shared_ptr<nn::Module>& m, const std::string& path, std::vector<std::string>& observed) {
  if (dynamic_cast<ObserverOrFakeQuantize*>(m.get())) return;
  // Fused and QAT modules are observed as one unit (PyTorch's _FusedModule
  // check and prepare_qat's observer_non_leaf_module_list).
  const bool fused = dynamic_cast<FusedModule*>(m.get()) != nullptr || dynamic_cast<QatModule*>(m.get()) != nullptr;
  auto children = m->named_children();
  const bool leaf = children.empty() || (children.size() == 1 && children.contains(kObserverName));
  if ((fused || leaf) && observed_type(*m)) {
    const std::optional<QConfig> qc = registry().get(*m);
    if (qc && !has_observer(*m)) attach_observer(*m, *qc);
    if (has_observer(*m)) observed.push_back(path);
    return;
  }
  for (const auto& [name, child] : children) {
    if (name == kObserverName) continue;
    add_observers(child, join(path, name), observed);
  }
}

template <class Impl>
std::shared_ptr<Impl> as(const std::shared_ptr<nn::Module>& m) {
  return std::dynamic_pointer_cast<Impl>(m);
}

}  // namespace

namespace {
// Modules are shared (holders, make_shared); prepare's registry and the swaps need that.
std::shared_ptr<nn::Module> owned(nn::Module& m) {
  std::shared_ptr<nn::Module> p = m.weak_from_this().lock();
  EMBER_CHECK(p != nullptr, "quantization: the model ", m.name(),
              " must be owned by a std::shared_ptr (a module holder or std::make_shared)");
  return p;
}
}  // namespace

std::shared_ptr<nn::Module> module_at(nn::Module& root, const std::string& path) {
  std::shared_ptr<nn::Module> cur = owned(root);
  if (path.empty()) return cur;
  std::stringstream ss(path);
  std::string part, walked;
  while (std::getline(ss, part, '.')) {
    const auto children = cur->named_children();
    EMBER_CHECK(children.contains(part), "quantization: no module named '", path, "' (", cur->name(),
                walked.empty() ? " at the root" : " at '" + walked + "'", " has no child '", part, "')");
    cur = children.at(part);
    walked = join(walked, part);
  }
  return cur;
}

void swap_module(nn::Module& root, const std::string& path, nn::AnyModule replacement) {
  EMBER_CHECK(!path.empty(), "swap_module: cannot swap the root module");
  const size_t dot = path.rfind('.');
  const std::string parent_path = dot == std::string::npos ? "" : path.substr(0, dot);
  const std::string name = dot == std::string::npos ? path : path.substr(dot + 1);
  std::shared_ptr<nn::Module> parent = module_at(root, parent_path);
  module_at(root, path);  // the error for a missing child
  if (auto* seq = dynamic_cast<nn::SequentialImpl*>(parent.get())) {
    seq->replace(name, std::move(replacement));
  } else if (auto* swappable = dynamic_cast<SwappableModule*>(parent.get())) {
    swappable->swap_child(name, std::move(replacement));
  } else {
    EMBER_CHECK(false, "swap_module: cannot swap '", path, "': its parent ", parent->name(),
                " is neither an nn::Sequential nor a SwappableModule (a C++ parent calls its children through "
                "members, which only those two can rebind)");
  }
}

void fuse_modules(nn::Module& model, const std::vector<std::vector<std::string>>& groups, bool is_qat) {
  for (const auto& group : groups) {
    EMBER_CHECK(group.size() == 2 || group.size() == 3, "fuse_modules: a group has ", group.size(),
                " modules; the patterns have 2 or 3");
    std::vector<std::shared_ptr<nn::Module>> mods;
    std::string types;
    for (const auto& path : group) {
      mods.push_back(module_at(model, path));
      types += (types.empty() ? "" : ", ") + mods.back()->name();
    }
    const bool training = mods[0]->is_training();
    for (const auto& m : mods)
      EMBER_CHECK(m->is_training() == training, "fuse_modules: the modules (", types,
                  ") must all be in the same mode (train or eval)");
    std::optional<nn::AnyModule> fused;
    auto conv = as<nn::Conv2dImpl>(mods[0]);
    auto linear = as<nn::LinearImpl>(mods[0]);
    auto bn2 = mods.size() > 1 ? as<nn::BatchNorm2dImpl>(mods[1]) : nullptr;
    auto bn1 = mods.size() > 1 ? as<nn::BatchNorm1dImpl>(mods[1]) : nullptr;
    auto relu_at = [&](size_t i) { return mods.size() > i ? as<nn::ReLUImpl>(mods[i]) : nullptr; };
    if (mods.size() == 2 && conv && bn2) {
      fused = is_qat ? nn::AnyModule(ConvBn2d(nn::Conv2d(conv), nn::BatchNorm2d(bn2)))
                       : nn::AnyModule(fuse_conv_bn_eval(*conv, *bn2));
    } else if (mods.size() == 3 && conv && bn2 && relu_at(2)) {
      fused = is_qat ? nn::AnyModule(ConvBnReLU2d(nn::Conv2d(conv), nn::BatchNorm2d(bn2), nn::ReLU(relu_at(2))))
                       : nn::AnyModule(ConvReLU2d(fuse_conv_bn_eval(*conv, *bn2), nn::ReLU(relu_at(2))));
    } else if (mods.size() == 2 && conv && relu_at(1)) {
      fused = nn::AnyModule(ConvReLU2d(nn::Conv2d(conv), nn::ReLU(relu_at(1))));
    } else if (mods.size() == 2 && as<nn::Conv1dImpl>(mods[0]) && relu_at(1)) {
      fused = nn::AnyModule(ConvReLU1d(nn::Conv1d(as<nn::Conv1dImpl>(mods[0])), nn::ReLU(relu_at(1))));
    } else if (mods.size() == 2 && as<nn::Conv3dImpl>(mods[0]) && relu_at(1)) {
      fused = nn::AnyModule(ConvReLU3d(nn::Conv3d(as<nn::Conv3dImpl>(mods[0])), nn::ReLU(relu_at(1))));
    } else if (mods.size() == 2 && linear && relu_at(1)) {
      fused = nn::AnyModule(LinearReLU(nn::Linear(linear), nn::ReLU(relu_at(1))));
    } else if (mods.size() == 2 && linear && bn1) {
      fused = is_qat ? nn::AnyModule(LinearBn1d(nn::Linear(linear), nn::BatchNorm1d(bn1)))
                     : nn::AnyModule(fuse_linear_bn_eval(*linear, *bn1));
    } else if (mods.size() == 2 && as<nn::BatchNorm2dImpl>(mods[0]) && relu_at(1)) {
      fused = nn::AnyModule(BNReLU2d(nn::BatchNorm2d(as<nn::BatchNorm2dImpl>(mods[0])), nn::ReLU(relu_at(1))));
    }
    EMBER_CHECK(fused.has_value(), "fuse_modules: cannot fuse (", types,
                "): the patterns are Conv2d-BatchNorm2d, Conv2d-BatchNorm2d-ReLU, Conv1d/2d/3d-ReLU, Linear-ReLU, "
                "Linear-BatchNorm1d and BatchNorm2d-ReLU");
    fused->ptr()->train(training);
    swap_module(model, group[0], *fused);
    for (size_t i = 1; i < group.size(); ++i) {
      nn::Identity identity;
      identity->train(training);
      swap_module(model, group[i], nn::AnyModule(identity));
    }
  }
}

void fuse_modules_qat(nn::Module& model, const std::vector<std::vector<std::string>>& groups) {
  fuse_modules(model, groups, /*is_qat=*/true);
}

std::vector<std::string> prepare(nn::Module& model, const QConfigDict& qconfig_dict) {
  for (const auto& [path, qc] : qconfig_dict) module_at(model, path);  // unknown paths are errors
  std::shared_ptr<nn::Module> root = owned(model);
  propagate(root, "", std::nullopt, qconfig_dict);
  std::vector<std::string> observed;
  add_observers(root, "", observed);
  return observed;
}

std::shared_ptr<ObserverOrFakeQuantize> observer_of(nn::Module& model, const std::string& path) {
  auto m = module_at(model, path);
  const auto children = m->named_children();
  if (!children.contains(kObserverName)) return nullptr;
  return std::dynamic_pointer_cast<ObserverOrFakeQuantize>(children.at(kObserverName));
}

std::optional<QConfig> qconfig_of(nn::Module& model, const std::string& path) {
  return registry().get(*module_at(model, path));
}

const ConversionFn* ConversionTable::find(const nn::Module& m) const {
  auto it = table_.find(std::type_index(typeid(m)));
  return it == table_.end() ? nullptr : &it->second;
}

ConversionTable& default_conversion_table() {
  static ConversionTable table = [] {
    ConversionTable t;
    detail::add_weighted_conversions(t);
    detail::add_activation_conversions(t);
    return t;
  }();
  return table;
}

namespace {
void convert_walk(nn::Module& root, const std::shared_ptr<nn::Module>& m, const std::string& path,
                  const ConversionTable& table, const ConvertOptions& options, std::vector<std::string>& swapped) {
  if (!path.empty()) {
    const ConversionFn* fn = table.find(*m);
    const std::optional<QConfig> qc = registry().get(*m);
    if (fn && qc) {
      const auto children = m->named_children();
      auto* obs = children.contains(kObserverName)
                      ? dynamic_cast<ObserverOrFakeQuantize*>(children.at(kObserverName).get())
                      : nullptr;
      std::optional<nn::AnyModule> replacement;
      try {
        replacement = (*fn)(*m, obs, *qc);
      } catch (const Error& e) {
        throw Error(::ember::detail::concat("convert: '", path, "' (", m->name(), "): ", e.what()));
      }
      swap_module(root, path, *replacement);
      swapped.push_back(path);
      return;
    }
    EMBER_CHECK(!options.strict || !qc || !has_observer(*m), "convert: '", path, "' (", m->name(),
                ") was observed but the conversion table has no entry for its type (strict); add one with "
                "ConversionTable::add or turn its qconfig off");
  }
  // Fused and QAT modules are converted as one unit or not at all (PyTorch's
  // _convert does not descend into a _FusedModule).
  if (dynamic_cast<FusedModule*>(m.get()) || dynamic_cast<QatModule*>(m.get())) return;
  for (const auto& [name, child] : m->named_children()) {
    if (name == kObserverName) continue;
    convert_walk(root, child, join(path, name), table, options, swapped);
  }
}

bool any_qconfig(const std::shared_ptr<nn::Module>& m) {
  if (registry().get(*m)) return true;
  for (const auto& [name, child] : m->named_children())
    if (any_qconfig(child)) return true;
  return false;
}

std::vector<std::string> convert_modules(nn::Module& model, const ConversionTable& table,
                                         const ConvertOptions& options) {
  std::vector<std::string> swapped;
  convert_walk(model, owned(model), "", table, options, swapped);
  return swapped;
}
}  // namespace

const ConversionTable& default_qat_module_table() {
  static const ConversionTable table = [] {
    ConversionTable t;
    t.add<nn::Conv2dImpl>([](nn::Module& m, ObserverOrFakeQuantize*, const QConfig& qc) {
      return nn::AnyModule(qat::Conv2dImpl::from_float(dynamic_cast<nn::Conv2dImpl&>(m), qc));
    });
    t.add<nn::LinearImpl>([](nn::Module& m, ObserverOrFakeQuantize*, const QConfig& qc) {
      return nn::AnyModule(qat::LinearImpl::from_float(dynamic_cast<nn::LinearImpl&>(m), qc));
    });
    t.add<ConvReLU2dImpl>([](nn::Module& m, ObserverOrFakeQuantize*, const QConfig& qc) {
      return nn::AnyModule(qat::ConvReLU2dImpl::from_float(dynamic_cast<ConvReLU2dImpl&>(m), qc));
    });
    t.add<LinearReLUImpl>([](nn::Module& m, ObserverOrFakeQuantize*, const QConfig& qc) {
      return nn::AnyModule(qat::LinearReLUImpl::from_float(dynamic_cast<LinearReLUImpl&>(m), qc));
    });
    t.add<ConvBn2dImpl>([](nn::Module& m, ObserverOrFakeQuantize*, const QConfig& qc) {
      return nn::AnyModule(qat::ConvBn2dImpl::from_float(dynamic_cast<ConvBn2dImpl&>(m), qc));
    });
    t.add<ConvBnReLU2dImpl>([](nn::Module& m, ObserverOrFakeQuantize*, const QConfig& qc) {
      return nn::AnyModule(qat::ConvBnReLU2dImpl::from_float(dynamic_cast<ConvBnReLU2dImpl&>(m), qc));
    });
    return t;
  }();
  return table;
}

std::vector<std::string> prepare_qat(nn::Module& model, const QConfigDict& qconfig_dict) {
  EMBER_CHECK(model.is_training(), "prepare_qat only works on models in training mode (call train() first)");
  for (const auto& [path, qc] : qconfig_dict) module_at(model, path);
  propagate(owned(model), "", std::nullopt, qconfig_dict);
  convert_modules(model, default_qat_module_table(), {});
  return prepare(model, qconfig_dict);
}

std::vector<std::string> convert(nn::Module& model, const ConversionTable& table, const ConvertOptions& options) {
  EMBER_CHECK(any_qconfig(owned(model)), "convert: no module of the ", model.name(),
              " has a qconfig: the model was not prepared (call prepare or prepare_qat, and calibrate, first)");
  return convert_modules(model, table, options);
}

std::vector<std::string> convert(nn::Module& model, const ConvertOptions& options) {
  return convert(model, default_conversion_table(), options);
}

}  // namespace ember::ao::quantization
