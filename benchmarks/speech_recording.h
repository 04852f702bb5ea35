#pragma once
// The 16 kHz speech recording the audio suite's workloads are cut from:
// codec2's speech_orig_16k.wav in ../shared/data (or $EMBER_SHARED_DATA).
#include <string>

#include "ember/ember.h"

namespace ember_bench {

// The recording's path; SkipWorkload when it is not there.
std::string speech_recording_path();

// Its first channel as float32 [samples], repeated to at least `samples` and
// cut there.
ember::Tensor speech_recording(int64_t samples);

}  // namespace ember_bench
