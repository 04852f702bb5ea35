#pragma once
// ember::audio::transforms: torchaudio.transforms (0.13) as nn::Modules that
// save and load as JSON (transforms/serialize.h) through the suite's
// transform registry, shared with vision.
#include "ember/audio/transforms/features.h"
#include "ember/audio/transforms/level.h"
#include "ember/audio/transforms/serialize.h"
#include "ember/audio/transforms/spectral.h"
#include "ember/audio/transforms/time.h"
#include "ember/audio/transforms/window.h"
