// ember::text UTF-8 validation against the Unicode standard's well-formed table.
#include <gtest/gtest.h>

#include <ember/core/error.h>
#include <ember/text/utf8.h>

namespace test_utf8_test {

using ember::text::find_invalid_utf8;

TEST(TextUtf8, AcceptsWellFormedText) {
  EXPECT_FALSE(find_invalid_utf8(""));
  EXPECT_FALSE(find_invalid_utf8("plain ASCII text, long enough to take the 8-byte path"));
  EXPECT_FALSE(find_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE4\xB8\xAD\xE6\x96\x87"));
  EXPECT_FALSE(find_invalid_utf8("\xED\x9F\xBF"));      // U+D7FF, just below the surrogates
  EXPECT_FALSE(find_invalid_utf8("\xEE\x80\x80"));      // U+E000, just above them
  EXPECT_FALSE(find_invalid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(TextUtf8, FindsTheFirstInvalidByte) {
  EXPECT_EQ(find_invalid_utf8("abc\x80"), 3u);                 // lone continuation
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), 0u);                // overlong '/'
  EXPECT_EQ(find_invalid_utf8("ab\xE0\x80\xAF"), 2u);          // overlong 3-byte
  EXPECT_EQ(find_invalid_utf8("\xED\xA0\x80"), 0u);            // surrogate U+D800
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);        // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("\xF5\x80\x80\x80"), 0u);        // invalid lead
  EXPECT_EQ(find_invalid_utf8("0123456789\xC3"), 10u);         // truncated at the end
  EXPECT_EQ(find_invalid_utf8("\xE2\x82"), 0u);                // truncated 3-byte
  EXPECT_EQ(find_invalid_utf8(std::string_view("a\0b\xFF", 4)), 3u);  // NUL is valid
}

TEST(TextUtf8, CheckNamesTheOperationAndTheOffset) {
  try {
    ember::text::check_utf8("ok \xC3\x28", "basic_english");
    FAIL() << "invalid UTF-8 must raise";
  } catch (const ember::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("basic_english"), std::string::npos) << what;
    EXPECT_NE(what.find("byte 3"), std::string::npos) << what;
    EXPECT_NE(what.find("0xC3"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(ember::text::check_utf8("fine", "op"));
}

}  // namespace test_utf8_test
