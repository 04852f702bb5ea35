#pragma once
// Ember::audio: torchaudio's signal processing on tensors (file IO is Ember::io's ember/io/audio.h).
#include "ember/audio/functional.h"
#include "ember/audio/transforms.h"
#include "ember/audio/kaldi.h"
#include "ember/audio/speech.h"
