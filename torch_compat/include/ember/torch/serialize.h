#pragma once
// <ember/torch.h>, part 5: torch::save / torch::load with libtorch's argument
// order (the value first, then the path) for modules (holders, shared_ptrs or
// references), optimizers, tensors and tensor lists.
//
// Files are written by Ember's own serializer (ember::save: safetensors, with
// an optimizer's non-tensor state as JSON metadata; docs/serialization.md), so
// torch::load reads what torch::save wrote. They are not libtorch archives:
// a file written here does not load in libtorch, and an archive written by
// libtorch's torch::save does not load here (docs/torch_compat.md).
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/state_io.h"
#include "ember/serialize/safetensors.h"
#include "ember/torch/tensor.h"

namespace torch {

namespace detail {
// The one place that writes a module's state dict for torch::save.
inline void save_module_state(const ember::StateDict& state, const std::string& path) {
  ember::save(path, state);  // switch point: ember::save_torch(path, state) once PyTorch's zip format is written
}

template <class M>
concept ModuleHandle = requires(const M& m) {
  { m->state_dict() } -> std::same_as<ember::OrderedDict<Tensor>>;
  m->load_state_dict(m->state_dict());
};
}  // namespace detail

// ---- modules ----
inline void save(const ember::nn::Module& module, const std::string& path) {
  detail::save_module_state(module.state_dict(), path);
}
template <detail::ModuleHandle M>
void save(const M& module, const std::string& path) {
  save(*module, path);
}
// Strict, as libtorch's: every parameter and buffer must be in the file, with its shape.
inline void load(ember::nn::Module& module, const std::string& path) { module.load_state_dict(ember::load(path)); }
template <detail::ModuleHandle M>
void load(M& module, const std::string& path) {
  load(*module, path);
}

// ---- optimizers ----
inline void save(const ember::optim::Optimizer& optimizer, const std::string& path) {
  ember::save(path, optimizer.state_dict());
}
inline void load(ember::optim::Optimizer& optimizer, const std::string& path) {
  optimizer.load_state_dict(ember::optim::load_optimizer_state_dict(path));
}

// ---- tensors ----
inline void save(const Tensor& tensor, const std::string& path) { ember::save(path, tensor); }
inline void save(const std::vector<Tensor>& tensors, const std::string& path) { ember::save(path, tensors); }
inline void load(Tensor& tensor, const std::string& path) { tensor = ember::load_tensor(path); }
inline void load(std::vector<Tensor>& tensors, const std::string& path) { tensors = ember::load_tensor_list(path); }

}  // namespace torch
