#include "dotcov/fault_injection.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "dotcov/module_info.h"
#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"

using namespace dotcov;

namespace {
std::vector<uint8_t> Sample() {
  std::vector<uint8_t> image;
  std::string error;
  EXPECT_TRUE(ReadWholeFile((std::filesystem::path(__FILE__).parent_path() / "data" / "portable" / "Sample.dll").string(),
                            &image, &error))
      << error;
  return image;
}

std::string NameOf(Bytes image, uint32_t token) {
  std::string error;
  auto pe = PeImage::Parse(image, &error);
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  for (const auto& m : md->MethodDefs())
    if ((0x06000000 | m.rid) == token) return md->TypeDefFullName(m.declaring_type) + "." + m.name;
  return "";
}
}  // namespace

TEST(FaultInjection, FindsMethodsBySimpleOrFullName) {
  auto image = Sample();
  auto simple = MethodTokensNamed(image, "Classify");
  ASSERT_EQ(simple.size(), 1u);
  EXPECT_EQ(NameOf(image, simple[0]), "Sample.Calc.Classify");
  EXPECT_EQ(MethodTokensNamed(image, "Sample.Calc.Classify"), simple);
  EXPECT_EQ(MethodTokensNamed(image, "Sample.Calc/Inner.Hello").size(), 1u);
  EXPECT_TRUE(MethodTokensNamed(image, "NoSuchMethod").empty());
  std::vector<uint8_t> junk = {1, 2, 3};
  EXPECT_TRUE(MethodTokensNamed(junk, "Classify").empty());
}
