#include "dotcov/utf.h"

#include <gtest/gtest.h>

using namespace dotcov;

TEST(Utf, RoundTripsAsciiBmpAndAstral) {
  std::u16string s = u"a/Ünïcødé/\U0001F600.cs";
  EXPECT_EQ(Utf16ToUtf8(s), "a/Ünïcødé/\xF0\x9F\x98\x80.cs");
  EXPECT_EQ(Utf8ToUtf16(Utf16ToUtf8(s)), s);
}

TEST(Utf, BadInputBecomesReplacementCharacters) {
  EXPECT_EQ(Utf16ToUtf8(std::u16string(1, char16_t(0xD800))), "\xEF\xBF\xBD");
  EXPECT_EQ(Utf8ToUtf16("\xC3"), u"\uFFFD");
  EXPECT_EQ(Utf8ToUtf16("\xFFx"), u"\uFFFDx");
}
