// torchtext.data.functional.filter_wikipedia_xml: fastText's wikifil.pl rules
// as an ordered list of regex substitutions, run with RE2.
#include <re2/re2.h>

#include <memory>
#include <vector>

#include "ember/core/error.h"
#include "ember/text/text_datasets.h"
#include "ember/text/utf8.h"

namespace ember::text {

namespace {

struct Rule {
  std::unique_ptr<RE2> pattern;
  std::string rewrite;
};

// Note [wikifil in RE2]: the patterns are torchtext's, applied in its order
// with Python re.sub semantics. Two spellings differ: Python's \d in a str
// pattern is any Unicode decimal digit, so it is \p{Nd} here; and Python's
// replacement "[[$1]]" is literal text ($1 is no group reference in Python),
// which RE2's rewrite strings also keep literally. Python's \s matches more
// than RE2's, but by the time \s runs only a-z, space and "\n" are left.
std::vector<Rule> make_rules() {
  const std::pair<const char*, const char*> table[] = {
      {R"(<.*>)", ""},
      {R"(&amp;)", "&"},
      {R"(&lt;)", "<"},
      {R"(&gt;)", ">"},
      {R"(<ref[^<]*<\/ref>)", ""},
      {R"(<[^>]*>)", ""},
      {R"(\[http:[^] ]*)", "["},
      {R"(\|thumb)", ""},
      {R"(\|left)", ""},
      {R"(\|right)", ""},
      {R"(\|\p{Nd}+px)", ""},
      {R"(\[\[image:[^\[\]]*\|)", ""},
      {R"(\[\[category:([^|\]]*)[^]]*\]\])", "[[$1]]"},
      {R"(\[\[[a-z\-]*:[^\]]*\]\])", ""},
      {R"(\[\[[^\|\]]*\|)", "[["},
      {R"(\{\{[^\}]*\}\})", ""},
      {R"(\{[^\}]*\})", ""},
      {R"(\[)", ""},
      {R"(\])", ""},
      {R"(&[^;]*;)", " "},
  };
  std::vector<Rule> rules;
  for (const auto& [p, r] : table) rules.push_back({std::make_unique<RE2>(p), r});
  for (char c = 'A'; c <= 'Z'; ++c) {
    rules.push_back({std::make_unique<RE2>(std::string(1, c)), std::string(1, static_cast<char>(c - 'A' + 'a'))});
  }
  const char* digits[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
  for (int d = 0; d < 10; ++d) {
    rules.push_back({std::make_unique<RE2>(std::string(1, static_cast<char>('0' + d))), std::string(" ") + digits[d] + " "});
  }
  rules.push_back({std::make_unique<RE2>(R"([^a-z\n]+)"), " "});
  rules.push_back({std::make_unique<RE2>(R"(\n )"), ""});
  rules.push_back({std::make_unique<RE2>(R"(\s+)"), " "});
  rules.push_back({std::make_unique<RE2>(R"(\n\s*\n)"), "\n"});
  for (const Rule& rule : rules) {
    EMBER_CHECK(rule.pattern->ok(), "filter_wikipedia_xml: bad pattern ", rule.pattern->pattern(), ": ",
                rule.pattern->error());
  }
  return rules;
}

}  // namespace

std::optional<std::string> filter_wikipedia_xml_line(std::string_view line) {
  if (line.find("#redirect") != std::string_view::npos || line.find("#REDIRECT") != std::string_view::npos) {
    return std::nullopt;
  }
  check_utf8(line, "filter_wikipedia_xml");
  static const std::vector<Rule> rules = make_rules();
  std::string s(line);
  for (const Rule& rule : rules) RE2::GlobalReplace(&s, *rule.pattern, rule.rewrite);
  // str.strip(): only ASCII spaces and "\n" can be left.
  const size_t begin = s.find_first_not_of(" \n");
  if (begin == std::string::npos) return std::nullopt;
  const size_t end = s.find_last_not_of(" \n");
  return s.substr(begin, end - begin + 1);
}

}  // namespace ember::text
