#include "ember/nn/container.h"

namespace ember::nn {

namespace {
// "Parameter containing: [torch.float32 of size 3x4]", as PyTorch prints list entries.
void print_parameters(std::ostream& os, const char* name, const OrderedDict<Tensor>& params) {
  os << name << "(";
  if (!params.empty()) os << "\n";
  for (const auto& [key, t] : params) {
    os << "    (" << key << "): Parameter containing: [torch." << t.dtype() << " of size ";
    for (int64_t d = 0; d < t.dim(); ++d) os << (d ? "x" : "") << t.size(d);
    os << "]\n";
  }
  os << ")";
}
}  // namespace

void SequentialImpl::replace(const std::string& name, AnyModule module) {
  const auto children = named_children();
  EMBER_CHECK(children.contains(name), "Sequential: no element named '", name, "' to replace");
  const std::shared_ptr<Module> old = children.at(name);
  for (AnyModule& m : modules_)
    if (m.ptr() == old) m = module;
  replace_module(name, module.ptr());
}

void ParameterListImpl::pretty_print(std::ostream& os) const { print_parameters(os, "ParameterList", own_parameters()); }
void ParameterDictImpl::pretty_print(std::ostream& os) const { print_parameters(os, "ParameterDict", own_parameters()); }

}  // namespace ember::nn
