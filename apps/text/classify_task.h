#pragma once
// ember-text --task classify: a text classifier on an AG_NEWS- or IMDB-layout
// corpus (or the generated news corpus), trained with batches of similar
// lengths (BucketBatchSampler), validated every epoch, tested at the end.
#include <string>
#include <vector>

#include "text_config.h"
#include "text_models.h"

namespace ember::apps::text_app {

TextResult train_classifier(const TextConfig& config);

// The model's input for a batch of texts' ids: the EmbeddingBag model's (ids,
// offsets), or the transformer's [S, B] ids padded with its pad index.
struct ClassifierBatch {
  Tensor ids, offsets;
};
ClassifierBatch make_classifier_batch(const ModelSpec& spec, const std::vector<const std::vector<int64_t>*>& texts);
Tensor classifier_logits(const TextModel& model, const ClassifierBatch& batch);

}  // namespace ember::apps::text_app
