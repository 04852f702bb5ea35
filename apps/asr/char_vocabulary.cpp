#include "char_vocabulary.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include <ember/core/error.h>

namespace ember::apps::asr_app {
namespace {

std::vector<std::string> default_tokens() {
  std::vector<std::string> t = {"_", " ", "'"};
  for (char c = 'A'; c <= 'Z'; ++c) t.emplace_back(1, c);
  return t;
}

}  // namespace

CharVocabulary::CharVocabulary() : tokens_(default_tokens()) {}

CharVocabulary::CharVocabulary(const std::vector<std::string>& tokens) : tokens_(default_tokens()) {
  EMBER_CHECK(tokens == tokens_, "ember-asr: the checkpoint's vocabulary of ", tokens.size(),
              " tokens is not the character vocabulary (blank, space, apostrophe, A-Z)");
}

std::string CharVocabulary::normalize(const std::string& transcript, const std::string& what) const {
  std::string s;
  for (const char raw : transcript) {
    const auto c = static_cast<unsigned char>(raw);
    if (std::isspace(c)) {
      if (!s.empty() && s.back() != ' ') s += ' ';
      continue;
    }
    const char u = static_cast<char>(std::toupper(c));
    EMBER_CHECK((u >= 'A' && u <= 'Z') || u == '\'', "ember-asr: ", what, ": the transcript \"", transcript,
                "\" has the character '", std::string(1, raw), "' (byte ", static_cast<int>(c),
                ") outside the vocabulary (A-Z, apostrophe, space)");
    s += u;
  }
  if (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::vector<int64_t> CharVocabulary::encode(const std::string& transcript, const std::string& what) const {
  std::vector<int64_t> ids;
  for (const char c : normalize(transcript, what)) ids.push_back(c == ' ' ? kSpace : c == '\'' ? 2 : 3 + (c - 'A'));
  return ids;
}

std::string CharVocabulary::decode(const std::vector<int64_t>& ids) const {
  std::string s;
  for (const int64_t id : ids) {
    EMBER_CHECK(id > kBlank && id < size(), "ember-asr: class ", id, " is not a character of the vocabulary");
    s += tokens_[static_cast<size_t>(id)];
  }
  return s;
}

audio::decoders::Lexicon CharVocabulary::read_lexicon(const std::string& path) const {
  std::ifstream in(path);
  EMBER_CHECK(in.good(), "ember-asr: cannot read the lexicon '", path, "'");
  std::vector<std::string> words;
  int64_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    std::istringstream fields(line);
    std::string word;
    if (!(fields >> word) || word[0] == '#') continue;
    words.push_back(normalize(word, "lexicon '" + path + "' line " + std::to_string(line_number)));
  }
  EMBER_CHECK(!words.empty(), "ember-asr: the lexicon '", path, "' has no words (one word per line)");
  return audio::decoders::Lexicon::from_words(words, tokens_, " ", kBlank);
}

}  // namespace ember::apps::asr_app
