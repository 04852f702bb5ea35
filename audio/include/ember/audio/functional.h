#pragma once
// ember::audio::functional: torchaudio.functional (0.13) on Ember tensors.
// Built from core tensor ops, so autograd and devices come with them.
#include <optional>
#include <string>

#include <ember/ember.h>

namespace ember::audio::functional {

// multiplier * log10(clamp(x, amin)) - multiplier * db_multiplier; with top_db,
// each [..., C, F, T] item (C = 1 for inputs of fewer than 3 dims) is clamped to
// its maximum minus top_db.
Tensor amplitude_to_DB(const Tensor& x, double multiplier, double amin, double db_multiplier,
                       std::optional<double> top_db = std::nullopt);
// ref * (10^(0.1 x))^power.
Tensor DB_to_amplitude(const Tensor& x, double ref, double power);
// Mu-law companding of x in [-1, 1] into int64 codes 0 .. quantization_channels-1.
Tensor mu_law_encoding(const Tensor& x, int64_t quantization_channels);
// The inverse of mu_law_encoding: codes to floats in [-1, 1].
Tensor mu_law_decoding(const Tensor& x_mu, int64_t quantization_channels);

// DCT-II matrix [n_mels, n_mfcc] (float32), norm "ortho" or none (then scaled by 2).
Tensor create_dct(int64_t n_mfcc, int64_t n_mels, std::optional<std::string> norm);
// Triangular mel filter banks [n_freqs, n_mels] (float32); norm "slaney" or
// none; mel_scale "htk" or "slaney".
Tensor melscale_fbanks(int64_t n_freqs, double f_min, double f_max, int64_t n_mels, int64_t sample_rate,
                       std::optional<std::string> norm = std::nullopt, const std::string& mel_scale = "htk");
// Triangular filter banks [n_freqs, n_filter] (float32) evenly spaced in Hz.
Tensor linear_fbanks(int64_t n_freqs, double f_min, double f_max, int64_t n_filter, int64_t sample_rate);

}  // namespace ember::audio::functional

// The rest of torchaudio.functional, one header per area.
#include "ember/audio/functional/effects.h"
#include "ember/audio/functional/filtering.h"
#include "ember/audio/functional/pitch_shift.h"
#include "ember/audio/functional/resample.h"
#include "ember/audio/functional/spectral.h"
