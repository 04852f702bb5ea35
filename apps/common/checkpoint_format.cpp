#include "checkpoint_format.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include <ember/core/generator.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/json.h>
#include <ember/serialize/safetensors.h>

namespace ember::apps {
namespace {

constexpr const char* kFormatKey = "ember.checkpoint";
constexpr const char* kOptimizerPrefix = "optimizer";

}  // namespace

CheckpointFormat::CheckpointFormat(std::string program, std::string format, std::string key_prefix)
    : program_(std::move(program)), format_(std::move(format)), prefix_(std::move(key_prefix) + ".") {}

Metadata CheckpointFormat::new_metadata() const {
  Metadata meta;
  meta[kFormatKey] = format_;
  return meta;
}

void CheckpointFormat::add_training_state(StateDict& tensors, Metadata& meta, const optim::Optimizer* optimizer,
                                          const ValueMap* scheduler_state) const {
  tensors.insert(key("generator"), default_generator().get_state().clone());
  if (optimizer != nullptr) optim::write_optimizer_state(optimizer->state_dict(), tensors, meta, kOptimizerPrefix);
  if (scheduler_state != nullptr) optim::write_scheduler_state(*scheduler_state, meta);
}

void CheckpointFormat::save(const std::string& path, const StateDict& tensors, const Metadata& meta) const {
  const std::string partial = path + ".partial";
  ember::save(partial, tensors, meta);
  EMBER_CHECK(std::rename(partial.c_str(), path.c_str()) == 0, program_,
              ": cannot move the checkpoint into place at '", path, "'");
}

StateDict CheckpointFormat::load(const std::string& path, Metadata& meta) const {
  StateDict tensors = ember::load(path, &meta);
  const std::string* tag = meta.find(kFormatKey);
  EMBER_CHECK(tag != nullptr && *tag == format_, "'", path, "' is not an ", program_, " checkpoint (no \"",
              kFormatKey, "\": \"", format_, "\" metadata",
              tag != nullptr ? "; it is an " + *tag + " checkpoint" : std::string(), ")");
  return tensors;
}

const std::string& CheckpointFormat::entry(const Metadata& meta, const std::string& key,
                                           const std::string& path) const {
  const std::string* v = meta.find(key);
  EMBER_CHECK(v != nullptr, program_, ": checkpoint '", path, "' has no '", key, "' entry");
  return *v;
}

double CheckpointFormat::number(const Metadata& meta, const std::string& key, const std::string& path) const {
  const std::string& text = entry(meta, key, path);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  EMBER_CHECK(!text.empty() && end == text.c_str() + text.size(), program_, ": checkpoint '", path, "': entry '",
              key, "' is not a number: '", text, "'");
  return v;
}

int64_t CheckpointFormat::integer(const Metadata& meta, const std::string& key, const std::string& path) const {
  const double v = number(meta, key, path);
  // 2^63 itself is out of range; every smaller integral double converts exactly.
  EMBER_CHECK(std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9223372036854775808.0, program_,
              ": checkpoint '", path, "': entry '", key, "' is not an integer: '", entry(meta, key, path), "'");
  return static_cast<int64_t>(v);
}

std::vector<std::vector<double>> CheckpointFormat::number_rows(const Metadata& meta, const std::string& key,
                                                              const std::string& path, size_t fields) const {
  const IValue list = serialize::json::parse(entry(meta, key, path), program_ + " checkpoint '" + key + "'");
  EMBER_CHECK(list.is_list(), program_, ": checkpoint '", path, "': '", key, "' is not a list");
  std::vector<std::vector<double>> rows;
  for (const IValue& row : list.to_list()) {
    EMBER_CHECK(row.is_list() && row.to_list().size() == fields, program_, ": checkpoint '", path, "': an '", key,
                "' entry is not ", fields, " numbers");
    std::vector<double> values;
    for (const IValue& x : row.to_list()) {
      EMBER_CHECK(x.is_none() || x.is_number(), program_, ": checkpoint '", path, "': an '", key,
                  "' entry is not ", fields, " numbers");
      values.push_back(x.is_none() ? NAN : x.to_double());
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

std::vector<std::string> CheckpointFormat::string_list(const Metadata& meta, const std::string& key,
                                                       const std::string& path) const {
  const IValue list = serialize::json::parse(entry(meta, key, path), program_ + " checkpoint '" + key + "'");
  EMBER_CHECK(list.is_list(), program_, ": checkpoint '", path, "': '", key, "' is not a list");
  std::vector<std::string> items;
  for (const IValue& item : list.to_list()) {
    EMBER_CHECK(item.is_string(), program_, ": checkpoint '", path, "': an '", key, "' entry is not a string");
    items.push_back(item.to_string());
  }
  return items;
}

uint64_t CheckpointFormat::unsigned_integer(const Metadata& meta, const std::string& key,
                                           const std::string& path) const {
  const std::string& text = entry(meta, key, path);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  EMBER_CHECK(!text.empty() && text[0] != '-' && errno == 0 && end == text.c_str() + text.size(), program_,
              ": checkpoint '", path, "': entry '", key, "' is not an unsigned integer: '", text, "'");
  return static_cast<uint64_t>(v);
}

StateDict CheckpointFormat::model_state(const StateDict& tensors) const {
  const std::string optimizer_prefix = std::string(kOptimizerPrefix) + ".";
  StateDict model;
  for (const auto& [name, t] : tensors)
    if (name.rfind(optimizer_prefix, 0) != 0 && name.rfind(prefix_, 0) != 0) model.insert(name, t);
  return model;
}

void CheckpointFormat::restore_training_state(const StateDict& tensors, const Metadata& meta,
                                              optim::Optimizer& optimizer) const {
  optimizer.load_state_dict(optim::read_optimizer_state(tensors, meta, kOptimizerPrefix));
  const Tensor* generator = tensors.find(key("generator"));
  EMBER_CHECK(generator != nullptr, program_, ": the checkpoint has no '", key("generator"), "' tensor");
  default_generator().set_state(*generator);
}

std::string metadata_number(double x) {
  char b[40];
  std::snprintf(b, sizeof(b), "%.17g", x);
  return b;
}

std::string json_number(double x) { return std::isfinite(x) ? metadata_number(x) : "null"; }

std::string json_number_rows(const std::vector<std::vector<double>>& rows) {
  std::string text = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    text += i ? ", [" : "[";
    for (size_t j = 0; j < rows[i].size(); ++j) text += (j ? ", " : "") + json_number(rows[i][j]);
    text += "]";
  }
  return text + "]";
}

std::string json_string_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + serialize::json::quote(items[i]);
  return text + "]";
}

}  // namespace ember::apps
