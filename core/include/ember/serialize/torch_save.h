#pragma once
// Writing PyTorch checkpoints: the zip files torch.save writes (PyTorch 1.6+,
// the default format), readable by Python's torch.load and by
// ember::serialize::load_torch. See docs/serialization.md, "Writing PyTorch
// checkpoints" (which also says why libtorch's C++ loaders do not read them).
//
//   ember::save_torch("model.pt", model->state_dict());           // an OrderedDict, as torch.save(m.state_dict())
//   IDict ckpt;
//   ckpt.insert("model", serialize::state_dict_value(model->state_dict()));
//   ckpt.insert("optimizer", optim::optimizer_state_dict_to_torch(opt.state_dict()));
//   ckpt.insert("epoch", 3);
//   ember::save_torch("ckpt.pt", IValue::dict(std::move(ckpt)));    // torch.load(...)["epoch"] == 3
//
// The value may hold None, bool, int, float, str, Tensor, list, tuple and
// dicts with str or int keys, nested. Tensors keep their dtype (all twelve,
// complex and bool and bfloat16 included), sizes, strides and storage offset;
// tensors that share a storage (views) are written over one storage record,
// so they share memory again when loaded. Tensors on other devices are
// written from a CPU copy of their storage with location "cpu"; tensors with
// a pending conjugate or negation bit are written resolved (their own
// storage). The bytes are those torch.save (PyTorch 1.13) writes for the
// same objects. Errors (an undefined tensor, a storage viewed as two dtypes,
// an unwritable file) are ember::Errors naming the path and the entry.
#include <string>
#include <utility>
#include <vector>

#include "ember/core/ivalue.h"
#include "ember/serialize/ordered_dict.h"

namespace ember {

// torch.save(value, path). The zip's top folder is the file's name without
// its extension ("model" for "dir/model.pt"), as torch.save names it
// ("archive" when that name is empty).
void save_torch(const std::string& path, const IValue& value);
// torch.save(state_dict, path): written as a collections.OrderedDict, the
// type of nn.Module.state_dict().
void save_torch(const std::string& path, const StateDict& state_dict);

namespace serialize {

// A module's tensors, for a TorchScript archive: its own parameters and
// buffers (in registration order; an undefined tensor is None, like an
// absent bias), its plain attributes and its submodules, each with its name.
// Attributes are what libtorch's OutputArchive::write(key, IValue) registers
// (an optimizer archive's "lr", "betas", "step", "exp_avg", "params/0"): a
// str, int, float, bool, Tensor or a tuple of those, annotated with its
// TorchScript type ("Tuple[float, float]").
struct ScriptModuleTree {
  std::vector<std::pair<std::string, Tensor>> parameters, buffers;
  std::vector<std::pair<std::string, IValue>> attributes;
  std::vector<std::string> child_names;
  std::vector<ScriptModuleTree> children;
};

// What libtorch's C++ torch::save(module, path) writes for such a module (an
// OutputArchive: a TorchScript archive of classes __torch__.Module and
// __torch__.___torch_mangle_<n>.Module that declare the parameters, buffers
// and submodules, with no methods), which libtorch's torch::load(module,
// path), torch.jit.load and load_torchscript read.
void save_torchscript_module(const std::string& path, const ScriptModuleTree& module);
std::string save_torchscript_module_bytes(const ScriptModuleTree& module, const std::string& archive_name = "archive");

// The file's bytes, without writing a file; archive_name is the zip's top
// folder ("archive": what torch.save writes to a buffer).
std::string save_torch_bytes(const IValue& value, const std::string& archive_name = "archive");
std::string save_torch_bytes(const StateDict& state_dict, const std::string& archive_name = "archive");

// A StateDict as an IValue dict (str -> Tensor), to nest it in a checkpoint.
// Written inside a larger value it is a plain dict, which torch's
// load_state_dict accepts like an OrderedDict.
IValue state_dict_value(const StateDict& state_dict);

// Whether path names a PyTorch checkpoint by its extension (.pt, .pth):
// ember::save writes those with save_torch.
bool is_torch_checkpoint_path(const std::string& path);

// The zip's top folder torch.save uses for a file: its base name without the
// last extension, "archive" when that is empty.
std::string archive_name_of(const std::string& path);

}  // namespace serialize
}  // namespace ember
