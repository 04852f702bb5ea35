#pragma once
// Saving and loading audio transforms: the suite's JSON format and registry
// (ember/transforms/serialize.h), shared with vision's transforms. The
// functions here that read or query the registry first register audio's
// built-in transforms, so every torchaudio type loads from a static link too:
//
//   auto features = ember::transforms::Compose({MelSpectrogram(...), AmplitudeToDB("power", 80.0)});
//   audio::transforms::save("features.json", *features);
//   TransformPtr same = audio::transforms::load("features.json");
#include <string>
#include <vector>

#include <ember/transforms/containers.h>
#include <ember/transforms/serialize.h>

namespace ember::audio::transforms {

using ::ember::transforms::Compose;
using ::ember::transforms::param;
using ::ember::transforms::save;
using ::ember::transforms::to_json;
using ::ember::transforms::TransformFactory;
using ::ember::transforms::write_transform;

::ember::transforms::TransformPtr from_json(const std::string& text);
::ember::transforms::TransformPtr load(const std::string& path);
::ember::transforms::TransformPtr read_transform(const Metadata& metadata, const std::string& key = "transform");
bool is_registered_transform(const std::string& type);
std::vector<std::string> registered_transforms();

// Adds audio's built-in transforms to the registry (once; the functions above
// call it). Call it before ember::transforms::load when that is the loader you use.
void register_audio_transforms();

}  // namespace ember::audio::transforms
