#include "speech_corpus.h"

#include <cstdlib>
#include <filesystem>

#include <ember/core/error.h>

namespace ember::apps {

std::string default_speech_corpus() {
  const char* from_env = std::getenv("EMBER_SPEECH_CORPUS");
  const bool env_set = from_env != nullptr && *from_env != '\0';
  const std::string root = env_set ? std::string(from_env) : std::string(EMBER_BUILD_SPEECH_CORPUS);
  EMBER_CHECK(std::filesystem::is_directory(root), "no speech corpus at ", root,
              env_set ? " ($EMBER_SPEECH_CORPUS)" : " (the build makes it when espeak-ng and sox are installed)",
              ": render one with `scripts/make_speech.sh DIR` and pass --data DIR or set EMBER_SPEECH_CORPUS=DIR");
  return root;
}

}  // namespace ember::apps
