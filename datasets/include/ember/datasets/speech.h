#pragma once
// The speech datasets of torchaudio.datasets in their official layouts, and
// pad_collate for batching waveforms of different lengths (docs/datasets.md,
// "Speech datasets").
#include "ember/datasets/speech/commonvoice.h"
#include "ember/datasets/speech/librimix.h"
#include "ember/datasets/speech/librispeech.h"
#include "ember/datasets/speech/libritts.h"
#include "ember/datasets/speech/ljspeech.h"
#include "ember/datasets/speech/pad_collate.h"
#include "ember/datasets/speech/speech_commands.h"
#include "ember/datasets/speech/vctk.h"
#include "ember/datasets/speech/wsj0mix.h"
#include "ember/datasets/speech/yesno.h"
