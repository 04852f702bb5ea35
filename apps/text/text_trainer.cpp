#include "text_trainer.h"

#include <ember/core/error.h>

#include "classify_task.h"
#include "lm_task.h"

namespace ember::apps::text_app {

TextResult train_text(const TextConfig& config) {
  if (config.task == "classify") return train_classifier(config);
  if (config.task == "lm") return train_language_model(config);
  EMBER_FAIL("ember-text: unknown --task '", config.task, "' (expected classify or lm)");
}

}  // namespace ember::apps::text_app
