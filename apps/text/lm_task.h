#pragma once
// ember-text --task lm: PyTorch's Transformer word-language-model tutorial on
// a WikiText-layout corpus: each line's tokens then <eos> as one stream,
// batchify into [T, 20] columns, BPTT windows of 35, SGD lr 5 with the
// gradient norm clipped to 0.5, lr x0.95 per epoch; perplexity on valid every
// epoch and on test at the end.
#include <string>
#include <vector>

#include "text_config.h"
#include "text_models.h"
#include "text_pipeline.h"

namespace ember::apps::text_app {

constexpr const char* kEos = "<eos>";

TextResult train_language_model(const TextConfig& config);

// The line's tokens as the LM reads them: <eos> (the end of the previous
// line, as in the training stream), the tokens, <eos>. Its perplexity is
// exp(mean cross-entropy of predicting each token and the final <eos>).
double line_perplexity(const TextModel& model, const TextPipeline& pipeline, const std::string& line);

}  // namespace ember::apps::text_app
