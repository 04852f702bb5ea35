#pragma once
// Loading PyTorch checkpoints (files written by torch.save) without Python:
// the zip format (default since PyTorch 1.6) and the legacy format
// (_use_new_zipfile_serialization=False). See docs/serialization.md.
//
// The pickle is run by a restricted unpickler that executes nothing: it builds
// only containers, primitives and tensors, and the only globals it accepts are
// collections.OrderedDict, torch._utils._rebuild_tensor(_v2),
// torch._utils._rebuild_parameter(_with_state) and the torch.*Storage types
// (and, for quantized tensors, _rebuild_qtensor and the qschemes; torch's
// dtypes as values, e.g. a quantized Linear's `_packed_params.dtype`, load as
// the str "torch.qint8").
// Any other global (os.system, torch.storage._load_from_bytes, a user class)
// is an ember::Error naming it. Tensors load on the CPU whatever device they
// were saved from; views that shared a storage in Python share memory here.
// Truncated, corrupted or hostile files raise ember::Error; tensor storages
// are bounded by the file size and the whole load by the checkpoint memory
// limit (memory_limit.h: 16 x the file + 256 MiB by default); running out of
// memory is an ember::Error naming the file.
#include <cstddef>
#include <string>
#include <vector>

#include "ember/serialize/ivalue.h"
#include "ember/serialize/memory_limit.h"
#include "ember/serialize/ordered_dict.h"

namespace ember::serialize {

IValue load_torch(const std::string& path);
// The same, and whether the file is a TorchScript archive (one that libtorch's
// serialize::OutputArchive wrote: a module, an optimizer's or a tensor's
// archive), whose value is then its attribute tree.
IValue load_torch(const std::string& path, bool* is_torchscript);
// Whether the file starts as a torch.save file does (a zip archive, or the
// legacy format's pickle): ember::load/load_tensor read such files with
// load_torch. A missing file is an ember::Error.
bool is_torch_file(const std::string& path);
IValue load_torch_bytes(const void* data, size_t size);
IValue load_torch_bytes(const void* data, size_t size, bool* is_torchscript);

// A checkpoint that holds a dict of tensors (a module's state_dict) as a
// StateDict, in the file's order; a TorchScript archive (below) gives its
// parameters and buffers; anything else is an ember::Error.
StateDict load_torch_state_dict(const std::string& path);

// TorchScript archives: what torch.jit.save(torch.jit.script(m)) and
// libtorch's C++ torch::save(module, path) write. Their pickle builds objects
// of the archive's own classes (__torch__.*), which the restricted unpickler
// accepts only when the archive's code/ folder defines them, reading nothing
// from that code but each class's __parameters__ and __buffers__ lists
// (docs/serialization.md, "Loading libtorch/TorchScript archives"). load_torch
// returns such an archive's attribute tree (objects as dicts of their
// attributes); load_torchscript collects the modules' parameters and buffers.
struct ScriptModuleState {
  // Parameters and buffers by attribute path ("layer1.0.bn1.running_mean"),
  // in module.state_dict()'s order: each module's parameters, its buffers,
  // then its submodules. None-valued ones (an absent bias) are left out.
  StateDict state_dict;
  std::vector<std::string> parameters;  // the names above that are parameters
  std::vector<std::string> buffers;     // ... and buffers
};
ScriptModuleState load_torchscript(const std::string& path);
ScriptModuleState load_torchscript_bytes(const void* data, size_t size);
// The same conversion for a loaded value: v must be a dict of str -> Tensor.
StateDict to_state_dict(const IValue& v);

}  // namespace ember::serialize
