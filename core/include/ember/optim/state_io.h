#pragma once
// Saving and loading optimizer and scheduler state.
//
//   ember::save("opt.safetensors", optimizer.state_dict());          // a file of its own
//   optimizer.load_state_dict(optim::load_optimizer_state_dict("opt.safetensors"));
//
//   // or one checkpoint with the model, the optimizer and the scheduler:
//   StateDict tensors = model->state_dict();
//   Metadata meta;
//   optim::write_optimizer_state(optimizer.state_dict(), tensors, meta);   // prefix "optimizer"
//   optim::write_scheduler_state(scheduler.state_dict(), meta);            // key "scheduler"
//   ember::save("ckpt.safetensors", tensors, meta);
//
//   // a PyTorch checkpoint: torch.save({"optimizer": opt.state_dict(), ...})
//   auto ckpt = serialize::load_torch("ckpt.pt");
//   optimizer.load_state_dict(optim::optimizer_state_dict_from_torch(ckpt.at("optimizer")));
//
// In a safetensors file the state tensors are entries named
// "<prefix>.state.<param index>.<key>" (a list of tensors: "...<key>.<i>"), and
// everything else (param_groups, plain per-parameter values) is JSON in the
// metadata entry "<prefix>" (docs/serialization.md describes the layout).
#include <string>

#include "ember/optim/optimizer.h"
#include "ember/serialize/ivalue.h"
#include "ember/serialize/ordered_dict.h"

namespace ember::optim {

void write_optimizer_state(const OptimizerStateDict& state, StateDict& tensors, Metadata& metadata,
                           const std::string& prefix = "optimizer");
OptimizerStateDict read_optimizer_state(const StateDict& tensors, const Metadata& metadata,
                                        const std::string& prefix = "optimizer");
// Reads a file written by ember::save(path, OptimizerStateDict): safetensors,
// or a PyTorch checkpoint (a .pt/.pth path, or torch.save(opt.state_dict())).
OptimizerStateDict load_optimizer_state_dict(const std::string& path);

// A Dict of plain values (scheduler state; no tensors) as JSON in metadata[key].
void write_scheduler_state(const Dict& state, Metadata& metadata, const std::string& key = "scheduler");
Dict read_scheduler_state(const Metadata& metadata, const std::string& key = "scheduler");

// The JSON text of a Dict and back: None, bool, int, float (non-finite ones as
// {"float": "inf"}), str and lists of floats; tensors are an error.
std::string dict_to_json(const Dict& dict);
Dict dict_from_json(const std::string& text);

// Converts what serialize::load_torch returns for a torch.optim state_dict
// ({"state": {index: {...}}, "param_groups": [{..., "params": [...]}]}).
OptimizerStateDict optimizer_state_dict_from_torch(const serialize::IValue& value);
// Converts a dict of plain values (a PyTorch scheduler's state_dict); nested
// lists of dicts (SequentialLR's "_schedulers") flatten to "<key>.<i>.<subkey>",
// entries with no Dict equivalent (dicts, Counters, callables) are skipped.
Dict dict_from_torch(const serialize::IValue& value);
// The other way: torch.optim's state_dict() layout as an IValue, for
// ember::save_torch (torch's optimizer.load_state_dict reads it; options that
// are lists, like Adam's betas, become tuples as in torch.optim).
serialize::IValue optimizer_state_dict_to_torch(const OptimizerStateDict& state);

}  // namespace ember::optim

namespace ember {
// Writes the optimizer state as a safetensors file (prefix "optimizer").
// A .pt/.pth path writes a PyTorch checkpoint instead (save_torch below;
// metadata must then be empty).
void save(const std::string& path, const optim::OptimizerStateDict& state, const Metadata& metadata = {});
// torch.save(optimizer.state_dict(), path).
void save_torch(const std::string& path, const optim::OptimizerStateDict& state);
}  // namespace ember
