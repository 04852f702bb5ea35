#pragma once
// ember-text's entry point for training: the task of the configuration.
#include "text_config.h"

namespace ember::apps::text_app {

// Trains --task classify or lm; ember::Errors (bad data, unknown names,
// mismatched checkpoints) propagate to the caller.
TextResult train_text(const TextConfig& config);

}  // namespace ember::apps::text_app
