// The text datasets against the records torchtext 0.14 yields, computed by
// scripts/fixtures/text_textdata.py with Python's csv, str.strip, readlines
// and re (filter_wikipedia_xml's rules); layouts, sharding and bad input.
#include <gtest/gtest.h>

#include <algorithm>

#include <ember/core/error.h>
#include <ember/text/text.h>

#include "textdata_test_util.h"

namespace test_textdata_datasets_test {

using namespace ember::text;
using textdata_test_util::drain;
using textdata_test_util::fixture_dir;
using textdata_test_util::read_expected;
using textdata_test_util::TempDir;
using textdata_test_util::write_file;

std::vector<std::string> texts(const std::vector<std::pair<int64_t, std::string>>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.push_back(r.second);
  return out;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ember::Error";
  return "";
}

TEST(TextDatasets, AgNewsParsesCsvAsPython) {
  AG_NEWS d(fixture_dir() / "ag_news", "train");
  const auto expected = read_expected("ag_news_train.expected");
  ASSERT_EQ(expected.size(), 8u);
  const auto got = drain<LabeledText>(d);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, expected[i].first) << "record " << i;
    EXPECT_EQ(got[i].second, expected[i].second) << "record " << i;
  }
}

TEST(TextDatasets, EnWik9RawAndCleanedMatchTorchtext) {
  const auto raw = drain<std::string>(*std::make_shared<EnWik9>(fixture_dir() / "enwik9"));
  EXPECT_EQ(raw, texts(read_expected("enwik9_raw.expected")));
  EnWik9 clean(fixture_dir() / "enwik9", {.clean = true});
  const auto expected = texts(read_expected("enwik9_clean.expected"));
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(drain<std::string>(clean), expected);
}

TEST(TextDatasets, WikiTextKeepsLineEnds) {
  // The fixture sits in wikitext/wikitext-2/: root "wikitext" is the extracted layout.
  WikiText2 d(fixture_dir() / "wikitext", "valid");
  const auto got = drain<std::string>(d);
  EXPECT_EQ(got, texts(read_expected("wikitext2_valid.expected")));
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got.front(), " \n");
  EXPECT_EQ(got.back(), " tail without newline");
}

TEST(TextDatasets, PennTreebankStripsAsPython) {
  PennTreebank d(fixture_dir() / "ptb", "test");
  EXPECT_EQ(drain<std::string>(d), texts(read_expected("ptb_test.expected")));
}

TEST(TextDatasets, FindsTorchtextCacheLayouts) {
  TempDir tmp;
  write_file(tmp.path() / "WikiText103" / "wikitext-103" / "wiki.train.tokens", "a\nb\n");
  EXPECT_EQ(drain<std::string>(*std::make_shared<WikiText103>(tmp.path())), (std::vector<std::string>{"a\n", "b\n"}));
  write_file(tmp.path() / "datasets" / "PennTreebank" / "ptb.valid.txt", " x \n");
  EXPECT_EQ(drain<std::string>(*std::make_shared<PennTreebank>(tmp.path(), "valid")), (std::vector<std::string>{"x"}));
}

TEST(TextDatasets, ImdbLabelsAndOrder) {
  TempDir tmp;
  const auto base = tmp.path() / "aclImdb" / "train";
  write_file(base / "pos" / "1_9.txt", "Great<br />film.\n");
  write_file(base / "pos" / "0_7.txt", "Good.");
  write_file(base / "neg" / "3_1.txt", "Bad \xC3\xA9.\r\n");
  write_file(base / "neg" / "notes.md", "ignored");
  write_file(base / "unsup" / "5_0.txt", "ignored");
  IMDB d(tmp.path(), "train");
  EXPECT_EQ(d.size(), 3);
  const auto got = drain<LabeledText>(d);
  const std::vector<LabeledText> expected = {{1, "Bad \xC3\xA9."}, {2, "Good."}, {2, "Great<br />film."}};
  EXPECT_EQ(got, expected);
  // Sharded round-robin: worker 1 of 2 gets records 1.
  EXPECT_EQ(drain<LabeledText>(d, 1, 2), (std::vector<LabeledText>{expected[1]}));
}

TEST(TextDatasets, WorkersShareRecordsRoundRobin) {
  EnWik9 d(fixture_dir() / "enwik9", {.clean = true});
  const auto all = drain<std::string>(d);
  for (int64_t workers : {2, 3}) {
    for (int64_t id = 0; id < workers; ++id) {
      std::vector<std::string> expected;
      for (size_t i = static_cast<size_t>(id); i < all.size(); i += static_cast<size_t>(workers)) expected.push_back(all[i]);
      EXPECT_EQ(drain<std::string>(d, id, workers), expected) << id << " of " << workers;
    }
  }
}

TEST(TextDatasets, MissingRootNamesTheLayout) {
  TempDir tmp;
  std::string what = error_of([&] { WikiText2 d(tmp.path(), "train"); });
  EXPECT_NE(what.find("WikiText2: dataset not found"), std::string::npos) << what;
  EXPECT_NE(what.find("wikitext-2/wiki.train.tokens"), std::string::npos) << what;
  EXPECT_NE(what.find("datasets/WikiText2"), std::string::npos) << what;
  what = error_of([&] { IMDB d(tmp.path(), "test"); });
  EXPECT_NE(what.find("aclImdb/test"), std::string::npos) << what;
  what = error_of([&] { AG_NEWS d(tmp.path(), "test"); });
  EXPECT_NE(what.find("test.csv"), std::string::npos) << what;
  what = error_of([&] { EnWik9 d(tmp.path()); });
  EXPECT_NE(what.find("enwik9"), std::string::npos) << what;
  what = error_of([&] { PennTreebank d(tmp.path(), "dev"); });
  EXPECT_NE(what.find("unknown split 'dev' (expected train, valid or test)"), std::string::npos) << what;
}

TEST(TextDatasets, BrokenFilesNameFileAndLine) {
  TempDir tmp;
  write_file(tmp.path() / "ptb.train.txt", "fine\nstill fine\nbad \xC3\x28 byte\n");
  PennTreebank ptb(tmp.path());
  std::string what = error_of([&] { drain<std::string>(ptb); });
  EXPECT_NE(what.find("ptb.train.txt line 3: invalid UTF-8 at byte 4"), std::string::npos) << what;

  write_file(tmp.path() / "train.csv", "\"1\",\"a\",\"b\"\n\"7\",\"a\",\"b\"\n");
  AG_NEWS bad_label(tmp.path());
  what = error_of([&] { drain<LabeledText>(bad_label); });
  EXPECT_NE(what.find("train.csv line 2: label '7' is not one of 1, 2, 3, 4"), std::string::npos) << what;

  write_file(tmp.path() / "train.csv", "\"1\",\"a\",\"b\"\n\n");
  AG_NEWS blank(tmp.path());
  what = error_of([&] { drain<LabeledText>(blank); });
  EXPECT_NE(what.find("line 2: expected a label and text fields, got 0"), std::string::npos) << what;

  write_file(tmp.path() / "train.csv", "\"1\",\"a\",\"b\"\n\"2\",\"open\nquote,x\n");
  AG_NEWS open_quote(tmp.path());
  what = error_of([&] { drain<LabeledText>(open_quote); });
  EXPECT_NE(what.find("line 2: unexpected end of data"), std::string::npos) << what;

  write_file(tmp.path() / "train.csv", "\"1\",\"a\",\"b\"\n\"2\",\"\xFF\",\"b\"\n");
  AG_NEWS bad_utf8(tmp.path());
  what = error_of([&] { drain<LabeledText>(bad_utf8); });
  EXPECT_NE(what.find("train.csv line 2: invalid UTF-8 at byte 5"), std::string::npos) << what;

  write_file(tmp.path() / "aclImdb" / "test" / "neg" / "0_1.txt", "ok\nno \xED\xA0\x80 surrogates");
  std::filesystem::create_directories(tmp.path() / "aclImdb" / "test" / "pos");
  IMDB imdb(tmp.path(), "test");
  what = error_of([&] { drain<LabeledText>(imdb); });
  EXPECT_NE(what.find("0_1.txt line 2: invalid UTF-8 at byte 3"), std::string::npos) << what;
}

TEST(TextDatasets, CsvParserFollowsPythonQuoting) {
  const auto rows = parse_csv("a,\"b,c\",\"d\"\"e\"\r\n\n\"x\"y,z\"w\n\"multi\nline\",end", "t");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].fields, (std::vector<std::string>{"a", "b,c", "d\"e"}));
  EXPECT_TRUE(rows[1].fields.empty());
  EXPECT_EQ(rows[1].line, 2);
  EXPECT_EQ(rows[2].fields, (std::vector<std::string>{"xy", "z\"w"}));
  EXPECT_EQ(rows[3].fields, (std::vector<std::string>{"multi\nline", "end"}));
  EXPECT_EQ(rows[3].line, 4);
}

}  // namespace test_textdata_datasets_test
