#pragma once
// ember-text --predict: labels lines of text with a classifier checkpoint
// ("<class>\t<probability>\t<line>"), or gives each line's perplexity under a
// language-model checkpoint ("<perplexity>\t<line>"). The checkpoint alone
// suffices: it holds the tokenizer, the vocabulary and the model's shape.
#include <iosfwd>
#include <string>

namespace ember::apps::text_app {

// Reads lines from `in` until its end and writes one result line per input
// line to `out`. Returns the number of lines.
int64_t predict_lines(const std::string& checkpoint, std::istream& in, std::ostream& out);

}  // namespace ember::apps::text_app
