#pragma once
// <ember/torch.h>, part 5: torch::save / torch::load with libtorch's argument
// order (the value first, then the path) for modules (holders, shared_ptrs or
// references), optimizers, tensors and tensor lists.
//
// torch::save writes what libtorch's torch::save writes, so that a libtorch
// program reads it with torch::load: a module as a TorchScript archive of its
// parameters, buffers and submodules (ember::nn::save_torchscript), an
// optimizer as libtorch's optimizer archive (optim::save_libtorch_optimizer),
// a tensor or a list of tensors as libtorch's tensor archive
// (serialize::save_libtorch_tensors). torch::load reads those (and libtorch's
// own), Ember's safetensors files, and what PyTorch's torch.save writes (a zip
// or legacy pickle checkpoint of a state_dict, an optimizer's state_dict or a
// tensor), told apart by the file's first bytes (Note [Checkpoint formats])
// and, for zip files, by whether they are TorchScript archives.
//
// To and from streams (std::ostream / std::istream) and writer functions, as
// libtorch: through serialize::OutputArchive / InputArchive (archive.h), so
// only libtorch's archive format (what libtorch's stream loads read too).
//
// Note [Checkpoint formats]: a safetensors file starts with its header's
// length (8 bytes, little-endian) and then '{'; PyTorch's zip checkpoints
// start with a zip entry ("PK\x03\x04") and its legacy ones with the pickle
// protocol opcode (0x80), which a safetensors length may start with too, so
// the '{' is looked at first. torch::load checks the first bytes and reads the
// file with ember::load or Ember's torch readers accordingly.
#include <cstdio>
#include <functional>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/optim/optimizer.h"
#include "ember/nn/torchscript.h"
#include "ember/optim/libtorch_archive.h"
#include "ember/optim/state_io.h"
#include "ember/serialize/libtorch_archive.h"
#include "ember/serialize/safetensors.h"
#include "ember/serialize/torch_load.h"
#include "ember/torch/archive.h"
#include "ember/torch/tensor.h"

namespace torch {

namespace detail {
// Whether `path` holds a checkpoint written by PyTorch's torch.save (zip or
// legacy pickle) rather than Ember's safetensors (Note [Checkpoint formats]).
// A file that cannot be opened is left to the reader, whose error names it.
inline bool is_pytorch_checkpoint(const std::string& path) {
  unsigned char head[9] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const size_t n = std::fread(head, 1, sizeof(head), f);
  std::fclose(f);
  if (n >= 4 && head[0] == 'P' && head[1] == 'K' && head[2] == 3 && head[3] == 4) return true;
  if (n == 9 && head[8] == '{') return false;  // safetensors (its length may start with 0x80)
  return n >= 1 && head[0] == 0x80;
}

inline ember::StateDict load_module_state(const std::string& path) {
  if (!is_pytorch_checkpoint(path)) return ember::load(path);
  // A torch.save'd state_dict, or the TorchScript archive libtorch's
  // torch::save(module) (and torch::save here) writes.
  try {
    return ember::serialize::load_torch_state_dict(path);
  } catch (const ember::Error& e) {
    EMBER_FAIL("torch::load: ", path, " does not hold a module's state_dict (", e.what(), ")");
  }
}

template <class M>
concept ModuleHandle = requires(const M& m) {
  { m->state_dict() } -> std::same_as<ember::OrderedDict<Tensor>>;
  m->load_state_dict(m->state_dict());
};
}  // namespace detail

// ---- modules ----
// libtorch's format: the TorchScript archive its torch::save(module) writes, which
// libtorch's torch::load(module, path) and Python's torch.jit.load read.
inline void save(const ember::nn::Module& module, const std::string& path) { ember::nn::save_torchscript(path, module); }
template <detail::ModuleHandle M>
void save(const M& module, const std::string& path) {
  save(*module, path);
}
// Strict, as libtorch's: every parameter and buffer must be in the file, with its shape.
inline void load(ember::nn::Module& module, const std::string& path) {
  module.load_state_dict(detail::load_module_state(path));
}
template <detail::ModuleHandle M>
void load(M& module, const std::string& path) {
  load(*module, path);
}

// ---- optimizers ----
// libtorch's optimizer archive (SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS). Loading
// restores the per-parameter state and, as libtorch's, keeps the optimizer's
// options; torch.save'd state_dicts and Ember's files restore both.
inline void save(const ember::optim::Optimizer& optimizer, const std::string& path) {
  ember::optim::save_libtorch_optimizer(path, optimizer);
}
inline void load(ember::optim::Optimizer& optimizer, const std::string& path) {
  if (!detail::is_pytorch_checkpoint(path)) {
    optimizer.load_state_dict(ember::optim::load_optimizer_state_dict(path));
    return;
  }
  bool script = false;
  ember::IValue value = ember::serialize::load_torch(path, &script);
  if (script) ember::optim::load_libtorch_optimizer(optimizer, value, "torch::load: " + path);
  else optimizer.load_state_dict(ember::optim::optimizer_state_dict_from_torch(value));
}

// ---- tensors ----
// libtorch's tensor archives (a module whose parameters "0", "1", ... are the tensors).
inline void save(const Tensor& tensor, const std::string& path) { ember::serialize::save_libtorch_tensors(path, {tensor}); }
inline void save(const std::vector<Tensor>& tensors, const std::string& path) {
  ember::serialize::save_libtorch_tensors(path, tensors);
}
// libtorch's archives, and (through ember::load_tensor / load_tensor_list)
// Ember's files and torch.save's.
inline void load(Tensor& tensor, const std::string& path) {
  if (detail::is_pytorch_checkpoint(path)) {
    bool script = false;
    ember::IValue value = ember::serialize::load_torch(path, &script);
    if (script) {
      tensor = ember::serialize::libtorch_tensors_from_archive(value, "torch::load: " + path).front();
      return;
    }
  }
  tensor = ember::load_tensor(path);
}
inline void load(std::vector<Tensor>& tensors, const std::string& path) {
  if (detail::is_pytorch_checkpoint(path)) {
    bool script = false;
    ember::IValue value = ember::serialize::load_torch(path, &script);
    if (script) {
      tensors = ember::serialize::libtorch_tensors_from_archive(value, "torch::load: " + path);
      return;
    }
  }
  tensors = ember::load_tensor_list(path);
}

// ---- streams and writer functions (libtorch's archive format) ----
template <class Value>
void save(const Value& value, std::ostream& stream) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(stream);
}
template <class Value>
void save(const Value& value, const std::function<size_t(const void*, size_t)>& func) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(func);
}
template <class Value>
void load(Value& value, std::istream& stream, std::optional<Device> device = std::nullopt) {
  serialize::InputArchive archive;
  archive.load_from(stream, device);
  archive >> value;
}
template <class Value>
void load(Value& value, const char* data, size_t size, std::optional<Device> device = std::nullopt) {
  serialize::InputArchive archive;
  archive.load_from(data, size, device);
  archive >> value;
}

}  // namespace torch
