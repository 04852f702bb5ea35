// JSON: the one lexer (serialize::json::Cursor, shared by json::parse and
// COCO's streaming reader), documents parsed into ember::IValue, and plain
// values written and read back (Note [Plain values in JSON]).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <ember/serialize/json.h>

#include "tensor_expect.h"

namespace ember {
namespace json_test {

namespace json = serialize::json;
using testing::expect_error;

TEST(JsonCursor, ReadsAndSkips) {
  const std::string text =
      " {\"a\": [1, -2.5e2, 0.0, 3.0, 1e400], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\", \"t\": "
      "true,"
      " \"n\": null, \"skip\": {\"k\": [[], {}, \"]}\", -0, 2E+3]}, \"a\": 5 } ";
  json::Cursor in(text, "doc");
  in.begin_object();
  std::string key;
  ASSERT_TRUE(in.next_member(key));
  EXPECT_EQ(key, "a");
  in.begin_array();
  std::vector<double> nums;
  while (in.next_element()) nums.push_back(in.read_number());
  ASSERT_EQ(nums.size(), 5u);
  EXPECT_EQ(nums[1], -250.0);
  EXPECT_TRUE(std::isinf(nums[4]));
  ASSERT_TRUE(in.next_member(key));
  EXPECT_EQ(in.read_string(), "x\xC3\xA9\xF0\x9F\x98\x80\n\"");
  ASSERT_TRUE(in.next_member(key));
  EXPECT_TRUE(in.read_bool());
  ASSERT_TRUE(in.next_member(key));
  EXPECT_TRUE(in.skip_null());
  ASSERT_TRUE(in.next_member(key));
  EXPECT_EQ(in.skip_value(), "{\"k\": [[], {}, \"]}\", -0, 2E+3]}");
  ASSERT_TRUE(in.next_member(key));  // a repeated key is passed on
  EXPECT_EQ(key, "a");
  EXPECT_EQ(in.read_integer(), 5);
  EXPECT_FALSE(in.next_member(key));
  in.finish();

  json::Cursor ints("[3.0, 1e3, 2.5, 9223372036854775807]", "ints");
  ints.begin_array();
  ASSERT_TRUE(ints.next_element());
  EXPECT_EQ(ints.read_integer(), 3);
  ASSERT_TRUE(ints.next_element());
  EXPECT_EQ(ints.read_integer(), 1000);
  ASSERT_TRUE(ints.next_element());
  expect_error([&] { ints.read_integer(); }, "ints: invalid JSON at byte 11: expected an integer");
}

TEST(JsonCursor, RejectsBadGrammar) {
  for (const char* bad :
       {"[01]", "[1.]", "[-]", "[.5]", "[1e]", "{\"a\" 1}", "{1: 2}", "[1 2]", "[\"a\\x\"]",
        "[\"a\tb\"]", "[tru]", "[nul]", "{\"a\": 1,}", "[", "\"abc"}) {
    SCOPED_TRACE(bad);
    json::Cursor in(bad, "t");
    expect_error(
        [&] {
          in.skip_value();
          in.finish();
        },
        "t: invalid JSON at byte ");
  }
}

TEST(Json, ParsesIntoIValue) {
  const IValue v = json::parse(
      R"( {"n": null, "b": [true, false], "i": -12, "big": 92233720368547758070, "f": 2.5, "e": 1e2,)"
      R"( "s": "a\u00e9", "o": {"z": 1, "a": []}} )",
      "doc");
  ASSERT_TRUE(v.is_dict());
  // Keys keep the document's order.
  std::vector<std::string> keys;
  for (const auto& [k, _] : v.to_dict()) keys.push_back(k.to_string());
  EXPECT_EQ(keys, (std::vector<std::string>{"n", "b", "i", "big", "f", "e", "s", "o"}));
  EXPECT_TRUE(v.at("n").is_none());
  EXPECT_EQ(v.at("b"), IValue::list({true, false}));
  EXPECT_TRUE(v.at("i").is_int());
  EXPECT_EQ(v.at("i").to_int(), -12);
  // Past int64, or with a fraction or exponent: a float.
  EXPECT_TRUE(v.at("big").is_double());
  EXPECT_DOUBLE_EQ(v.at("big").to_double(), 92233720368547758070.0);
  EXPECT_TRUE(v.at("f").is_double());
  EXPECT_TRUE(v.at("e").is_double());
  EXPECT_EQ(v.at("e").to_double(), 100.0);
  EXPECT_EQ(v.at("s").to_string(), "a\xC3\xA9");
  EXPECT_EQ(v.at("o").at("z").to_int(), 1);
  EXPECT_TRUE(v.at("o").at("a").is_list());
  EXPECT_TRUE(v.at("o").at("a").to_list().empty());
}

TEST(Json, ErrorsNameTheInputAndOffset) {
  expect_error([] { json::parse(R"({"a": 1, "a": 2})", "hdr"); }, "hdr: invalid JSON at byte 12: duplicate key \"a\"");
  expect_error([] { json::parse("[1, 2,]", "hdr"); }, "hdr: invalid JSON at byte 6");
  expect_error([] { json::parse("", "empty"); }, "empty: invalid JSON at byte 0: unexpected end of input");
  expect_error([] { json::parse("[1] x", "t"); }, "t: invalid JSON at byte 4: unexpected data after the JSON value");
  expect_error([] { json::parse("[NaN]", "t"); }, "t: invalid JSON at byte 1: unexpected character");
  expect_error([] { json::parse("\"\xC0\xAF\"", "t"); }, "invalid UTF-8 in string");
  expect_error([] { json::parse(R"(["\udc00"])", "t"); }, "unpaired low surrogate");
  // Nesting: kMaxDepth levels parse, one more is an error (no deep recursion).
  const auto nested = [](int n) { return std::string(static_cast<size_t>(n), '[') + std::string(static_cast<size_t>(n), ']'); };
  EXPECT_TRUE(json::parse(nested(json::kMaxDepth), "deep").is_list());
  expect_error([&] { json::parse(nested(json::kMaxDepth + 1), "deep"); }, "nesting too deep");
  expect_error([&] { json::parse(nested(100000), "deeper"); }, "nesting too deep");
}

// The memory reported while parsing covers what the tree holds: a document of
// many small values reports much more than its text, and every release
// matches an earlier charge.
TEST(Json, ParseAccountsTheTree) {
  std::string text = "[";
  for (int i = 0; i < 10000; ++i) text += (i ? ",{\"k" : "{\"k") + std::to_string(i) + "\": \"" + std::string(20, 'x') + "\"}";
  text += "]";
  int64_t live = 0, peak = 0;
  const IValue v = json::parse(text, "doc", [&](int64_t n) {
    live += n;
    peak = std::max(peak, live);
    ASSERT_GE(live, 0);
  });
  EXPECT_EQ(v.to_list().size(), 10000u);
  EXPECT_GT(live, static_cast<int64_t>(10000 * (sizeof(IValue) + sizeof(IDict) + 2 * 20)));
  EXPECT_GE(peak, live);
  // A charge that throws stops the parse with that error.
  expect_error([&] { json::parse(text, "doc", [](int64_t n) { EMBER_CHECK(n < 1000, "over budget"); }); },
               "over budget");
}

TEST(Json, PlainValuesRoundTrip) {
  const ValueMap map{{"none", IValue()},
                     {"flag", true},
                     {"count", int64_t{-3}},
                     {"lr", 0.1},
                     {"whole", 2.0},  // a float holding an integer stays a float
                     {"nan", std::nan("")},
                     {"inf", -HUGE_VAL},
                     {"name", "sgd \"x\"\n"},
                     {"betas", std::pair<double, double>{0.9, 0.999}},
                     {"sizes", std::vector<int64_t>{3, 224, 224}},
                     {"nested", IValue::list({IValue::tuple({1, 2.5}), IValue("s")})}};
  const std::string text = json::plain_map_to_json(map, "test");
  EXPECT_NE(text.find(R"("whole": 2.0)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("nan": {"float": "nan"})"), std::string::npos) << text;
  const ValueMap back = json::plain_map_from_json(json::parse(text, "test"), "test", "map");
  // Equal, except that the tuple reads back as a list.
  ValueMap expected = map;
  expected["nested"] = IValue::list({IValue::list({1, 2.5}), IValue("s")});
  EXPECT_EQ(back, expected);
  EXPECT_TRUE(back.at("whole").is_double());
  EXPECT_TRUE(back.at("count").is_int());
  EXPECT_TRUE(std::isnan(back.at("nan").to_double()));

  expect_error([] { json::plain_map_to_json({{"t", IValue(Tensor())}}, "who"); }, "who: entry 't' holds a Tensor");
  expect_error([] { json::plain_map_from_json(json::parse(R"({"a": {"b": 1}})", "t"), "who", "m"); },
               "who: 'm.a' is an object that is not a float");
  expect_error([] { json::plain_map_from_json(json::parse(R"({"a": {"float": "big"}})", "t"), "who", "m"); },
               "who: 'm.a' holds an unknown float 'big'");
}

}  // namespace json_test
}  // namespace ember
