#pragma once
// Where the speech apps (ember-asr, ember-vocoder, ember-separate) find their
// default corpus: the spoken-digits corpus that scripts/make_speech.sh renders
// (LibriSpeech, LibriTTS, Libri2Mix and wsj0-mix layouts; docs/audio.md). The
// build makes it in <build>/speech-digits (target ember_speech_corpus) when
// espeak-ng and sox are installed.
#include <string>

namespace ember::apps {

// $EMBER_SPEECH_CORPUS when set, else the build's <build>/speech-digits. A
// folder that does not exist is an ember::Error saying how to make one.
std::string default_speech_corpus();

}  // namespace ember::apps
