#pragma once
// Separating recordings with a trained ConvTasNet: the sources of a mixture,
// scaled to the mixture (Note [Output scale]), written as 16-bit WAV files
// <name>_s1.wav, <name>_s2.wav, ...; and --separate CHECKPOINT FILE..., which
// does it for files on disk with a checkpoint alone.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/models/conv_tasnet.h>

namespace ember::apps::separate_app {

// The model's estimate of the sources of mixture [1, frames] (float32, mono),
// as [num_sources, frames], in inference mode, scaled to the mixture.
Tensor separate_mixture(models::ConvTasNetImpl& model, const Tensor& mixture);

// Note [Output scale]: the SI-SNR loss is blind to scale, so the network's
// outputs come at whatever level training left them. Before they are written,
// all sources are multiplied by one factor, the least-squares fit of their
// sum to the mixture (<sum, mix> / <sum, sum>): relative levels stay as
// estimated, and the files play at the mixture's loudness. estimate is
// [..., num_sources, frames] and mixture [..., 1, frames].
Tensor match_mixture_scale(const Tensor& estimate, const Tensor& mixture);

// Writes sources [num_sources, frames] to DIR/<name>_s1.wav ... as 16-bit PCM
// (clipped to [-1, 1]) and returns the paths.
std::vector<std::string> write_sources(const std::string& dir, const std::string& name, const Tensor& sources,
                                       int64_t sample_rate);

// --separate: loads the checkpoint, then for each file (any format the audio
// backend reads, mono; resampled to the model's rate when it differs) writes
// OUT_DIR/<file name without extension>_s<i>.wav and reports a line per file
// on `log`. Returns the files written.
std::vector<std::string> separate_files(const std::string& checkpoint, const std::vector<std::string>& files,
                                        const std::string& out_dir, std::ostream& log);

}  // namespace ember::apps::separate_app
