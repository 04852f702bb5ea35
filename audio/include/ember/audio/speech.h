#pragma once
// Speech recognition and separation metrics, losses and decoders (issue 24):
// SI-SDR / SI-SNR, PIT loss, SDR improvements, WER / CER (ember::audio::metrics);
// CTC greedy and prefix beam-search decoders with a lexicon (ember::audio::decoders).
#include "ember/audio/decoders/ctc.h"
#include "ember/audio/decoders/lexicon.h"
#include "ember/audio/metrics/error_rate.h"
#include "ember/audio/metrics/separation.h"
