#pragma once
// ember-asr --transcribe: audio files to text with a checkpoint alone. Each
// file is read by Ember::io (any format it decodes), averaged to mono,
// resampled to the model's rate, turned into the checkpoint's features and
// decoded (prefix beam search, or greedy with beam 1).
#include <cstdint>
#include <string>
#include <vector>

namespace ember::apps::asr_app {

struct TranscribeOptions {
  int64_t beam = 10;    // 1: greedy decoding
  std::string lexicon;  // a word list constraining the beam search
};

// One transcript per file, in order. An unreadable file or a checkpoint of
// another app is an ember::Error naming it.
std::vector<std::string> transcribe_files(const std::string& checkpoint, const std::vector<std::string>& files,
                                          const TranscribeOptions& options = {});

}  // namespace ember::apps::asr_app
