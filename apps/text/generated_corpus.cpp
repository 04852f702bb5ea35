#include "generated_corpus.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <random>

#include <ember/core/error.h>

namespace ember::apps::text_app {
namespace {

namespace fs = std::filesystem;
using Words = std::vector<const char*>;

// Note [The generated news corpus]
// Each topic has a grammar of subject, verb, object and detail word lists;
// a sentence is "<subject> <verb> <object> <filler> <detail>". Some words are
// shared by two topics (World/Sports: national, team, cup...; Business/Sci-Tech:
// company, launch, shares...), every topic draws from the same fillers, and a
// row mixes in sentences of another topic (the title keeps the row's topic in
// 85% of rows, each description sentence in 70%), and 3% of the rows carry a
// random label. A bag-of-words model thus learns the topics quickly but cannot
// reach 100%: the mixed and relabelled rows bound the accuracy near 95%.
struct Grammar {
  Words subjects, verbs, objects, details;
};

const std::array<Grammar, 4>& grammars() {
  static const std::array<Grammar, 4> g = {{
      // World
      {{"the president", "the prime minister", "rebels", "the united nations", "diplomats", "the government",
        "protesters", "the foreign minister", "national leaders", "the army"},
       {"condemned", "negotiated", "announced", "rejected", "signed", "debated", "called for", "warned about"},
       {"a ceasefire", "the peace talks", "new sanctions", "the election results", "a border treaty",
        "the refugee crisis", "an embassy closure", "the national referendum"},
       {"in the capital", "near the border", "at the summit", "in parliament", "after the elections",
        "during the crisis"}},
      // Sports
      {{"the striker", "the coach", "the home team", "the champions", "the goalkeeper", "the national team",
        "the captain", "fans", "the underdogs", "the league"},
       {"won", "lost", "scored in", "celebrated", "dominated", "trained for", "qualified for", "announced"},
       {"the final match", "the world cup", "a penalty shootout", "the championship", "the season opener",
        "the gold medal", "a record transfer", "the playoff game"},
       {"at the stadium", "in overtime", "before the crowd", "in the second half", "after the tournament",
        "on home soil"}},
      // Business
      {{"the company", "investors", "the central bank", "shareholders", "the retailer", "analysts",
        "the chief executive", "the airline", "the automaker", "wall street"},
       {"reported", "acquired", "raised", "cut", "forecast", "announced", "sold", "invested in"},
       {"quarterly profits", "interest rates", "its shares", "a merger deal", "oil prices", "the earnings outlook",
        "thousands of jobs", "a bond offering"},
       {"on the stock market", "in the fiscal year", "amid inflation", "after the merger", "in early trading",
        "at the annual meeting"}},
      // Sci/Tech
      {{"researchers", "the software company", "scientists", "engineers", "the space agency", "hackers",
        "the chipmaker", "astronomers", "the startup", "the company"},
       {"released", "discovered", "developed", "launched", "patched", "tested", "announced", "unveiled"},
       {"a new processor", "a software update", "a distant galaxy", "the satellite", "a security flaw",
        "an open source browser", "a quantum computer", "the mobile phone"},
       {"in the laboratory", "on the internet", "in orbit", "with artificial intelligence", "in a new study",
        "for developers"}},
  }};
  return g;
}

const Words& fillers() {
  static const Words w = {"today", "on monday", "this week", "officials said", "according to reports",
                          "late on friday", "once again", "for the first time", "as expected", "reuters reported"};
  return w;
}

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  // A uniform index below n (mt19937_64 is specified bit for bit; the modulo
  // bias is below 1e-17 for these sizes).
  size_t below(size_t n) { return static_cast<size_t>(rng_() % n); }
  bool chance(double p) { return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p; }
  const char* pick(const Words& w) { return w[below(w.size())]; }

 private:
  std::mt19937_64 rng_;
};

std::string sentence(Draw& d, size_t topic, bool with_filler) {
  const Grammar& g = grammars()[topic];
  std::string s = d.pick(g.subjects);
  s += ' ';
  s += d.pick(g.verbs);
  s += ' ';
  s += d.pick(g.objects);
  if (with_filler) {
    s += ' ';
    s += d.pick(fillers());
  }
  s += ' ';
  s += d.pick(g.details);
  return s;
}

// A CSV field as AG_NEWS writes it: always quoted, quotes doubled.
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

void write_split(const fs::path& path, int64_t per_class, Draw& d) {
  std::ofstream f(path, std::ios::binary);
  EMBER_CHECK(f.good(), "ember-text: cannot write '", path.string(), "'");
  const size_t topics = grammars().size();
  for (int64_t i = 0; i < per_class * static_cast<int64_t>(topics); ++i) {
    const size_t topic = static_cast<size_t>(i) % topics;
    const size_t title_topic = d.chance(0.85) ? topic : d.below(topics);
    std::string title = sentence(d, title_topic, false);
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    std::string description;
    const size_t sentences = 1 + d.below(3);
    for (size_t k = 0; k < sentences; ++k) {
      const size_t t = d.chance(0.7) ? topic : d.below(topics);
      description += (k ? ", and " : "") + sentence(d, t, d.chance(0.5));
    }
    description += '.';
    const size_t label = d.chance(0.03) ? d.below(topics) : topic;
    f << quoted(std::to_string(label + 1)) << ',' << quoted(title) << ',' << quoted(description) << '\n';
  }
  EMBER_CHECK(f.good(), "ember-text: cannot write '", path.string(), "'");
}

}  // namespace

const std::vector<std::string>& news_topics() {
  static const std::vector<std::string> t = {"World", "Sports", "Business", "Sci/Tech"};
  return t;
}

int64_t write_news_corpus(const std::string& root, const NewsCorpusOptions& o) {
  EMBER_CHECK(o.train_per_class >= 1 && o.test_per_class >= 1, "ember-text: the generated corpus needs at least ",
              "one row per topic and split (got ", o.train_per_class, " and ", o.test_per_class, ")");
  fs::create_directories(root);
  // Separate streams, so the test split does not change with the training size.
  Draw train(o.seed * 2 + 1), test(o.seed * 2 + 2);
  // Written under temporary names and renamed: a run interrupted while writing
  // never leaves a partial corpus that a later run would take as complete.
  write_split(fs::path(root) / "train.csv.partial", o.train_per_class, train);
  write_split(fs::path(root) / "test.csv.partial", o.test_per_class, test);
  fs::rename(fs::path(root) / "test.csv.partial", fs::path(root) / "test.csv");
  fs::rename(fs::path(root) / "train.csv.partial", fs::path(root) / "train.csv");
  return (o.train_per_class + o.test_per_class) * static_cast<int64_t>(grammars().size());
}

int64_t write_wikitext_from_text(const std::string& text_file, const std::string& root, int64_t max_lines) {
  std::ifstream in(text_file, std::ios::binary);
  EMBER_CHECK(in.good(), "ember-text: cannot read --from-text file '", text_file, "'");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (max_lines > 0 && static_cast<int64_t>(lines.size()) == max_lines) break;
    lines.push_back(std::move(line));
  }
  EMBER_CHECK(lines.size() >= 10, "ember-text: --from-text file '", text_file, "' has ", lines.size(),
              " lines; at least 10 are needed for train, valid and test splits");
  const fs::path dir = fs::path(root) / "wikitext-2";
  fs::create_directories(dir);
  const size_t n = lines.size(), train_end = n * 8 / 10, valid_end = n * 9 / 10;
  const auto write = [&](const char* name, size_t begin, size_t end) {
    std::ofstream f(dir / name, std::ios::binary);
    for (size_t i = begin; i < end; ++i) f << lines[i] << '\n';
    EMBER_CHECK(f.good(), "ember-text: cannot write '", (dir / name).string(), "'");
  };
  write("wiki.valid.tokens", train_end, valid_end);
  write("wiki.test.tokens", valid_end, n);
  write("wiki.train.tokens", 0, train_end);
  return static_cast<int64_t>(n);
}

}  // namespace ember::apps::text_app
