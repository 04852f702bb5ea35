#pragma once
// The corpora ember-text writes itself: a news-like classification corpus in
// AG_NEWS layout (four topics, sentences from a small grammar per topic), and
// a WikiText layout cut from any plain text file.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::apps::text_app {

struct NewsCorpusOptions {
  int64_t train_per_class = 3000;
  int64_t test_per_class = 500;
  uint64_t seed = 0;
};

// AG_NEWS's class names, in label order 1..4.
const std::vector<std::string>& news_topics();

// Writes ROOT/train.csv and ROOT/test.csv (rows "label","title","description",
// as AG_NEWS's files). Deterministic for a seed. Returns the number of rows.
int64_t write_news_corpus(const std::string& root, const NewsCorpusOptions& options);

// Splits the lines of `text_file` into ROOT/wikitext-2/wiki.{train,valid,test}.tokens
// (the first 80%, the next 10%, the last 10%), at most `max_lines` lines in all
// (0: every line). Returns the number of lines written.
int64_t write_wikitext_from_text(const std::string& text_file, const std::string& root, int64_t max_lines = 0);

}  // namespace ember::apps::text_app
