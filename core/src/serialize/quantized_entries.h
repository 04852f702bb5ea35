#pragma once
// Quantized tensors in safetensors files (Note [Quantized safetensors entries]
// in serialize/quantized_entries.cpp).
#include "ember/serialize/safetensors.h"

namespace ember::serialize {

bool has_quantized(const StateDict& tensors);
// Each quantized entry as its stored integers plus parameters (metadata and,
// per channel, two more entries); other entries and metadata unchanged.
void expand_quantized(const StateDict& tensors, const Metadata& metadata, StateDict& plain, Metadata& plain_metadata);
// The inverse on a loaded file: entries with quantization metadata become
// quantized tensors again (errors name the file and entry).
void collapse_quantized(SafetensorsContents& contents, const std::string& file);

}  // namespace ember::serialize
