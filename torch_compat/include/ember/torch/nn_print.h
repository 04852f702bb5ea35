#pragma once
// <ember/torch.h>, part 3c: modules print as libtorch's operator<< prints
// them: "torch::nn::Conv2d(1, 16, kernel_size=[3, 3], stride=[1, 1])", a
// container or a module with children as libtorch's pretty_print_recursive
// ("Name(\n  (key): child\n)"), a module of one's own by its class name
// ("NetImpl", as libtorch's Module::name()). Including this header installs
// the printer for the whole program (ember::nn::set_module_printer), so
// `std::cout << *net` in a ported program prints what it printed with
// libtorch. Formats checked against libtorch 1.13
// (tests/compat/libtorch/pretty_print.cpp). A built-in module not listed
// below prints "torch::nn::" followed by Ember's (PyTorch-style) text.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "ember/nn/module_printer.h"
#include "ember/nn/nn.h"
#include "ember/torch/nn.h"

namespace torch::nn::detail {

// c10's ExpandingArray printing: one value bare, several as "[a, b]".
inline void print_ints(std::ostream& os, const std::vector<int64_t>& v) {
  if (v.size() == 1) {
    os << v[0];
    return;
  }
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ']';
}
inline bool all_equal(const std::vector<int64_t>& v, int64_t value) {
  for (int64_t x : v)
    if (x != value) return false;
  return true;
}
inline std::string padding_mode_tag(const std::string& mode) {
  if (mode == "reflect") return "kReflect";
  if (mode == "replicate") return "kReplicate";
  if (mode == "circular") return "kCircular";
  return "kZeros";
}

inline std::string demangled_class_name(const ::ember::nn::Module& module) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(module).name(), nullptr, nullptr, &status),
                                               std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(typeid(module).name());
}

// An adaptive pool's output size, None for a kept dim: "[7, 7])".
inline void print_output_size(std::ostream& os, const std::vector<std::optional<int64_t>>& v) {
  auto one = [&](const std::optional<int64_t>& x) {
    if (x) {
      os << *x;
    } else {
      os << "None";
    }
  };
  if (v.size() == 1) {
    one(v[0]);
  } else {
    os << '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) os << ", ";
      one(v[i]);
    }
    os << ']';
  }
  os << ')';
}

// A pool's stride: Ember's empty stride means the kernel size.
inline std::vector<int64_t> pool_stride(const ::ember::nn::functional::ExpandingInts& stride,
                                        const ::ember::nn::functional::ExpandingInts& kernel, int64_t d) {
  return stride.values.empty() ? kernel.expand(d, "torch::nn pretty_print", "kernel_size")
                               : stride.expand(d, "torch::nn pretty_print", "stride");
}

template <size_t D, class Conv>
void print_conv(std::ostream& os, const Conv& m, const char* kind, const std::vector<int64_t>* output_padding) {
  os << "torch::nn::" << kind << D << "d(" << m.options.in_channels << ", " << m.options.out_channels
     << ", kernel_size=";
  print_ints(os, m.kernel_size);
  os << ", stride=";
  print_ints(os, m.stride);
  if (!all_equal(m.padding, 0)) print_ints(os << ", padding=", m.padding);
  if (!all_equal(m.dilation, 1)) print_ints(os << ", dilation=", m.dilation);
  if (output_padding && !all_equal(*output_padding, 0)) print_ints(os << ", output_padding=", *output_padding);
  if (m.options.groups != 1) os << ", groups=" << m.options.groups;
  if (!m.options.bias) os << ", bias=false";
  if (m.options.padding_mode != "zeros") os << ", padding_mode=" << padding_mode_tag(m.options.padding_mode);
  os << ')';
}

template <size_t D>
bool print_spatial(std::ostream& os, const ::ember::nn::Module& module) {
  namespace en = ::ember::nn;
  if (auto* m = dynamic_cast<const en::ConvImpl<D>*>(&module)) {
    print_conv<D>(os, *m, "Conv", nullptr);
  } else if (auto* m = dynamic_cast<const en::ConvTransposeImpl<D>*>(&module)) {
    print_conv<D>(os, *m, "ConvTranspose", &m->output_padding);
  } else if (auto* m = dynamic_cast<const en::MaxPoolImpl<D>*>(&module)) {
    os << "torch::nn::MaxPool" << D << "d(kernel_size=";
    print_ints(os, m->options.kernel_size.expand(D, "torch::nn pretty_print", "kernel_size"));
    print_ints(os << ", stride=", pool_stride(m->options.stride, m->options.kernel_size, D));
    print_ints(os << ", padding=", m->options.padding.expand(D, "torch::nn pretty_print", "padding"));
    print_ints(os << ", dilation=", m->options.dilation.expand(D, "torch::nn pretty_print", "dilation"));
    os << ", ceil_mode=" << m->options.ceil_mode << ')';
  } else if (auto* m = dynamic_cast<const en::AvgPoolImpl<D>*>(&module)) {
    os << "torch::nn::AvgPool" << D << "d(kernel_size=";
    print_ints(os, m->options.kernel_size.expand(D, "torch::nn pretty_print", "kernel_size"));
    print_ints(os << ", stride=", pool_stride(m->options.stride, m->options.kernel_size, D));
    print_ints(os << ", padding=", m->options.padding.expand(D, "torch::nn pretty_print", "padding"));
    os << ')';
  } else if (auto* m = dynamic_cast<const en::AdaptivePoolImpl<en::AdaptiveKind::Avg, D>*>(&module)) {
    print_output_size(os << "torch::nn::AdaptiveAvgPool" << D << "d(output_size=", m->options.output_size);
  } else if (auto* m = dynamic_cast<const en::AdaptivePoolImpl<en::AdaptiveKind::Max, D>*>(&module)) {
    print_output_size(os << "torch::nn::AdaptiveMaxPool" << D << "d(output_size=", m->options.output_size);
  } else if (auto* m = dynamic_cast<const en::NormImpl<en::NormKind::Batch, D>*>(&module)) {
    os << "torch::nn::BatchNorm" << D << "d(" << m->options.num_features << ", eps=" << m->options.eps
       << ", momentum=";
    if (m->options.momentum) {
      os << *m->options.momentum;
    } else {
      os << "None";
    }
    os << ", affine=" << m->options.affine << ", track_running_stats=" << m->options.track_running_stats << ')';
  } else {
    return false;
  }
  return true;
}

template <class Dropout>
bool print_dropout(std::ostream& os, const ::ember::nn::Module& module, const char* name) {
  auto* m = dynamic_cast<const Dropout*>(&module);
  if (m) os << "torch::nn::" << name << "(p=" << m->options.p << ", inplace=" << m->options.inplace << ')';
  return m != nullptr;
}

template <class Rnn>
bool print_rnn(std::ostream& os, const ::ember::nn::Module& module, const char* name) {
  auto* m = dynamic_cast<const Rnn*>(&module);
  if (!m) return false;
  const auto& o = m->options;
  os << "torch::nn::" << name << "(input_size=" << o.input_size << ", hidden_size=" << o.hidden_size
     << ", num_layers=" << o.num_layers << ", bias=" << o.bias << ", batch_first=" << o.batch_first
     << ", dropout=" << o.dropout << ", bidirectional=" << o.bidirectional << ')';
  return true;
}

// One module's own line (libtorch's pretty_print); false for a module this
// table does not know.
inline bool print_known(std::ostream& os, const ::ember::nn::Module& module) {
  namespace en = ::ember::nn;
  if (auto* m = dynamic_cast<const en::LinearImpl*>(&module)) {
    os << "torch::nn::Linear(in_features=" << m->options.in << ", out_features=" << m->options.out
       << ", bias=" << m->options.bias << ')';
    return true;
  }
  if (print_spatial<1>(os, module) || print_spatial<2>(os, module) || print_spatial<3>(os, module)) return true;
  if (print_dropout<en::DropoutImpl>(os, module, "Dropout") || print_dropout<en::Dropout2dImpl>(os, module, "Dropout2d") ||
      print_dropout<en::Dropout3dImpl>(os, module, "Dropout3d") ||
      print_dropout<en::AlphaDropoutImpl>(os, module, "AlphaDropout") ||
      print_dropout<en::FeatureAlphaDropoutImpl>(os, module, "FeatureAlphaDropout"))
    return true;
  if (print_rnn<en::LSTMImpl>(os, module, "LSTM") || print_rnn<en::GRUImpl>(os, module, "GRU") ||
      print_rnn<en::RNNImpl>(os, module, "RNN"))
    return true;
  if (auto* m = dynamic_cast<const en::ReLUImpl*>(&module)) {
    os << "torch::nn::ReLU(" << (m->options.inplace ? "inplace=true" : "") << ')';
  } else if (auto* m = dynamic_cast<const en::LeakyReLUImpl*>(&module)) {
    os << "torch::nn::LeakyReLU(negative_slope=" << m->options.negative_slope
       << (m->options.inplace ? ", inplace=true" : "") << ')';
  } else if (auto* m = dynamic_cast<const en::ELUImpl*>(&module)) {
    os << "torch::nn::ELU(alpha=" << m->options.alpha << (m->options.inplace ? ", inplace=true" : "") << ')';
  } else if (dynamic_cast<const en::GELUImpl*>(&module)) {
    os << "torch::nn::GELU()";
  } else if (dynamic_cast<const en::SigmoidImpl*>(&module)) {
    os << "torch::nn::Sigmoid()";
  } else if (dynamic_cast<const en::TanhImpl*>(&module)) {
    os << "torch::nn::Tanh()";
  } else if (dynamic_cast<const en::IdentityImpl*>(&module)) {
    os << "torch::nn::Identity()";
  } else if (auto* m = dynamic_cast<const en::SoftmaxImpl*>(&module)) {
    os << "torch::nn::Softmax(dim=" << m->dim << ')';
  } else if (auto* m = dynamic_cast<const en::LogSoftmaxImpl*>(&module)) {
    os << "torch::nn::LogSoftmax(dim=" << m->dim << ')';
  } else if (auto* m = dynamic_cast<const en::FlattenImpl*>(&module)) {
    os << "torch::nn::Flatten(start_dim=" << m->options.start_dim << ", end_dim=" << m->options.end_dim << ')';
  } else if (auto* m = dynamic_cast<const en::LayerNormImpl*>(&module)) {
    os << "torch::nn::LayerNorm([";
    for (size_t i = 0; i < m->options.normalized_shape.size(); ++i)
      os << (i ? ", " : "") << m->options.normalized_shape[i];
    os << "], eps=" << m->options.eps << ", elementwise_affine=" << m->options.elementwise_affine << ')';
  } else if (auto* m = dynamic_cast<const en::GroupNormImpl*>(&module)) {
    os << "torch::nn::GroupNorm(" << m->options.num_groups << ", " << m->options.num_channels
       << ", eps=" << m->options.eps << ", affine=" << m->options.affine << ')';
  } else if (auto* m = dynamic_cast<const en::EmbeddingImpl*>(&module)) {
    const auto& o = m->options;
    os << "torch::nn::Embedding(num_embeddings=" << o.num_embeddings << ", embedding_dim=" << o.embedding_dim;
    if (o.padding_idx) os << ", padding_idx=" << *o.padding_idx;
    if (o.max_norm) os << ", max_norm=" << *o.max_norm;
    if (o.norm_type != 2) os << ", norm_type=" << o.norm_type;
    if (o.scale_grad_by_freq) os << ", scale_grad_by_freq=" << o.scale_grad_by_freq;
    if (o.sparse) os << ", sparse=" << o.sparse;
    os << ')';
  } else if (dynamic_cast<const en::SequentialImpl*>(&module)) {
    os << "torch::nn::Sequential";
  } else if (dynamic_cast<const en::ModuleListImpl*>(&module)) {
    os << "torch::nn::ModuleList";
  } else if (dynamic_cast<const en::ModuleDictImpl*>(&module)) {
    os << "torch::nn::ModuleDict";
  } else {
    return false;
  }
  return true;
}

// libtorch's Module::pretty_print for the modules the table does not know.
inline void print_own_line(std::ostream& os, const ::ember::nn::Module& module) {
  std::ostringstream own;
  own << std::boolalpha;
  if (print_known(own, module)) {
    os << own.str();
    return;
  }
  module.pretty_print(own);
  const std::string text = own.str();
  const std::string class_name = demangled_class_name(module);
  if (class_name.rfind("ember::", 0) == 0) {
    os << "torch::nn::" << text;  // an Ember module without a libtorch format here
  } else if (text == module.name() + "()") {
    os << class_name;  // a module of one's own without pretty_print: libtorch prints its name
  } else {
    os << text;  // a pretty_print of one's own
  }
}

// libtorch's Module::pretty_print_recursive.
inline void print_recursive(std::ostream& os, const ::ember::nn::Module& module, const std::string& indentation) {
  print_own_line(os, module);
  const auto children = module.named_children();
  if (children.empty()) return;
  os << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& [name, child] : children) {
    os << next << '(' << name << "): ";
    print_recursive(os, *child, next);
    os << '\n';
  }
  os << indentation << ')';
}

inline void print_module_libtorch_style(std::ostream& os, const ::ember::nn::Module& module) {
  print_recursive(os, module, "");
}

// Installed once, when the program starts (an inline variable: one for the program).
inline const bool libtorch_printer_installed =
    (::ember::nn::set_module_printer(&print_module_libtorch_style), true);

}  // namespace torch::nn::detail
