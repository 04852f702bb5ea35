#pragma once
// Tensor archives as libtorch's C++ torch::save(tensor, path) and
// torch::save(std::vector<Tensor>, path) write them: a TorchScript archive of
// one module (class __torch__.Module) whose parameters "0", "1", ... are the
// tensors (serialize::OutputArchive::write(key, tensor) registers each as a
// parameter, keeping its requires_grad). libtorch's torch::load(tensor, path)
// reads "0"; torch::load(vector, path) reads "0", "1", ... until one is
// missing. docs/serialization.md, "libtorch's optimizer and tensor archives".
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/serialize/ivalue.h"

namespace ember::serialize {

// libtorch's torch::save(tensors, path) (one tensor: {t}, as torch::save(t, path)).
void save_libtorch_tensors(const std::string& path, const std::vector<Tensor>& tensors);
// The tensors "0", "1", ... of such an archive; at least one is required.
std::vector<Tensor> load_libtorch_tensors(const std::string& path);
// The same from a loaded archive's attribute tree (serialize::load_torch);
// `what` names the file in errors.
std::vector<Tensor> libtorch_tensors_from_archive(const IValue& archive, const std::string& what);

}  // namespace ember::serialize
