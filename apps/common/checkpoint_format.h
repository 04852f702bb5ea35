#pragma once
// The conventions every app's checkpoint shares, in one place: a safetensors file
// whose metadata names its format ("ember.checkpoint": "ember-asr/1"), the app's
// own tensors and metadata under one key prefix ("asr."), the optimizer's state
// under "optimizer.*", the scheduler's under "scheduler", the default generator's
// state as a tensor (so a resumed run draws the same numbers), and an atomic save
// (write "<path>.partial", then rename). Each app keeps only what is its own
// (model hyperparameters, vocabulary, history) in its *_checkpoint.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/optim/optimizer.h>
#include <ember/core/ivalue.h>

namespace ember::apps {

class CheckpointFormat {
 public:
  // program: the name errors start with ("ember-asr"); format: the metadata tag
  // ("ember-asr/1"); key_prefix: where the app's own entries live ("asr").
  CheckpointFormat(std::string program, std::string format, std::string key_prefix);

  // --- writing ---
  // Metadata carrying the format tag.
  Metadata new_metadata() const;
  // Adds what resuming needs: the default generator's state, and the optimizer's
  // and scheduler's state when given (either may be null).
  void add_training_state(StateDict& tensors, Metadata& meta, const optim::Optimizer* optimizer,
                          const ValueMap* scheduler_state) const;
  // Writes next to the target, then renames: an interrupted save never leaves a
  // truncated checkpoint in place of the last good one.
  void save(const std::string& path, const StateDict& tensors, const Metadata& meta) const;

  // --- reading ---
  // ember::load, then the format check: another app's checkpoint (or a plain
  // safetensors file) is an error that says what the file is.
  StateDict load(const std::string& path, Metadata& meta) const;
  const std::string& entry(const Metadata& meta, const std::string& key, const std::string& path) const;
  double number(const Metadata& meta, const std::string& key, const std::string& path) const;
  int64_t integer(const Metadata& meta, const std::string& key, const std::string& path) const;
  // All of uint64's range, read exactly (seeds).
  uint64_t unsigned_integer(const Metadata& meta, const std::string& key, const std::string& path) const;
  // A JSON list of lists of numbers (json_number_rows), each row `fields` long;
  // null reads as NaN.
  std::vector<std::vector<double>> number_rows(const Metadata& meta, const std::string& key, const std::string& path,
                                               size_t fields) const;
  // A JSON list of strings (json_string_list).
  std::vector<std::string> string_list(const Metadata& meta, const std::string& key, const std::string& path) const;
  // The model's tensors: everything but the optimizer's and the app's own entries.
  StateDict model_state(const StateDict& tensors) const;
  // Restores the optimizer and the default generator (the scheduler's Dict is
  // optim::read_scheduler_state(meta), as its type differs between apps).
  void restore_training_state(const StateDict& tensors, const Metadata& meta, optim::Optimizer& optimizer) const;

  const std::string& program() const { return program_; }
  // "<key_prefix>." + name
  std::string key(const std::string& name) const { return prefix_ + name; }

 private:
  std::string program_;
  std::string format_;
  std::string prefix_;  // key_prefix + "."
};

// A double as metadata text that reads back exactly ("%.17g"; "nan"/"inf" for
// non-finite values, which strtod reads back).
std::string metadata_number(double x);
// A double inside a JSON list: JSON has no NaN, so non-finite values are null.
std::string json_number(double x);
// Rows of numbers (an app's per-epoch history) as a JSON list of lists.
std::string json_number_rows(const std::vector<std::vector<double>>& rows);
// Strings (class names, vocabulary tokens) as a JSON list.
std::string json_string_list(const std::vector<std::string>& items);

}  // namespace ember::apps
