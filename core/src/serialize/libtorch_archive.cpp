// libtorch's tensor archives (ember/serialize/libtorch_archive.h).
#include "ember/serialize/libtorch_archive.h"

#include "ember/core/error.h"
#include "ember/serialize/torch_load.h"
#include "ember/serialize/torch_save.h"

namespace ember::serialize {

void save_libtorch_tensors(const std::string& path, const std::vector<Tensor>& tensors) {
  ScriptModuleTree tree;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "save_libtorch_tensors: ", path, ": tensor ", i, " is undefined");
    tree.parameters.emplace_back(std::to_string(i), tensors[i]);
  }
  save_torchscript_module(path, tree);
}

std::vector<Tensor> libtorch_tensors_from_archive(const IValue& archive, const std::string& what) {
  EMBER_CHECK(archive.is_dict(), what, ": not a libtorch tensor archive (its root is a ", archive.type_name(), ")");
  std::vector<Tensor> out;
  // libtorch reads "0", "1", ... until one is missing (or is not a tensor).
  for (int64_t i = 0;; ++i) {
    const IValue* v = archive.find(std::to_string(i));
    if (v == nullptr || !v->is_tensor()) break;
    out.push_back(v->to_tensor());
  }
  EMBER_CHECK(!out.empty(), what, ": not a libtorch tensor archive: it has no tensor attribute '0'");
  return out;
}

std::vector<Tensor> load_libtorch_tensors(const std::string& path) {
  bool script = false;
  IValue v = load_torch(path, &script);
  EMBER_CHECK(script, "load_libtorch_tensors: ", path,
              ": not a TorchScript archive (libtorch's torch::save(tensor) writes one)");
  return libtorch_tensors_from_archive(v, "load_libtorch_tensors: " + path);
}

}  // namespace ember::serialize
