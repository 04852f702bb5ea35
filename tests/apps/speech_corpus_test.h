#pragma once
// Tests that read the spoken-digits corpus the build renders (target
// ember_speech_corpus, made when espeak-ng and sox are installed; CMake then
// defines EMBER_HAVE_SPEECH_CORPUS for the speech apps' tests). Without it
// they compile as gtest's DISABLED_ tests, which every run lists as disabled,
// so a machine without the corpus says what it left out instead of failing.
#include <gtest/gtest.h>

#ifdef EMBER_HAVE_SPEECH_CORPUS
#define SPEECH_CORPUS_TEST(suite, name) TEST(suite, name)
#else
#define SPEECH_CORPUS_TEST(suite, name) TEST(suite, DISABLED_##name)
#endif
