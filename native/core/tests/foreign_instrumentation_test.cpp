#include "dotcov/foreign_instrumentation.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "dotcov/module_info.h"

using namespace dotcov;

TEST(ForeignInstrumentation, APlainAssemblyHasNone) {
  std::vector<uint8_t> image;
  std::string error;
  ASSERT_TRUE(ReadWholeFile(
      (std::filesystem::path(__FILE__).parent_path() / "data" / "portable" / "Sample.dll").string(), &image, &error))
      << error;
  EXPECT_EQ(ForeignInstrumentation(image), "");
  std::vector<uint8_t> junk = {1, 2, 3};
  EXPECT_EQ(ForeignInstrumentation(junk), "");
}
