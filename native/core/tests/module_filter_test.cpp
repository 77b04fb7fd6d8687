#include "dotcov/module_filter.h"

#include <gtest/gtest.h>

using namespace dotcov;

TEST(ModuleFilter, PathIsUnderComparesWholeComponents) {
  EXPECT_TRUE(PathIsUnder("/src/a/b.cs", "/src/a"));
  EXPECT_TRUE(PathIsUnder("/src/a", "/src/a"));
  EXPECT_FALSE(PathIsUnder("/src/ab/c.cs", "/src/a"));
  EXPECT_FALSE(PathIsUnder("/other/c.cs", "/src"));
  EXPECT_TRUE(PathIsUnder("/x.cs", "/"));
  EXPECT_TRUE(PathIsUnder("/x.cs", ""));
}

TEST(ModuleFilter, RecognisesTestFrameworks) {
  std::string fw;
  EXPECT_TRUE(IsTestAssembly({"System.Runtime", "xunit.core"}, &fw));
  EXPECT_EQ(fw, "xunit.core");
  EXPECT_TRUE(IsTestAssembly({"nunit.framework"}, nullptr));
  EXPECT_TRUE(IsTestAssembly({"Microsoft.VisualStudio.TestPlatform.TestFramework"}, nullptr));
  EXPECT_TRUE(IsTestAssembly({"xunit.v3.core"}, nullptr));
  EXPECT_FALSE(IsTestAssembly({"System.Runtime", "Calc", "xunitish"}, nullptr));
}

TEST(ModuleFilter, CoversUserCodeUnderTheRootOnly) {
  ModuleFacts calc{"Calc", {"System.Runtime"}, {"/src/Calc/Math.cs"}};
  EXPECT_TRUE(DecideModule(calc, {"/src", false}).cover);
  auto outside = DecideModule(calc, {"/elsewhere", false});
  EXPECT_FALSE(outside.cover);
  EXPECT_NE(outside.reason.find("/src/Calc/Math.cs"), std::string::npos);
  ModuleFacts tests{"Calc.Tests", {"xunit.core", "Calc"}, {"/src/Calc.Tests/T.cs"}};
  EXPECT_FALSE(DecideModule(tests, {"/src", false}).cover);
  EXPECT_TRUE(DecideModule(tests, {"/src", true}).cover);
  EXPECT_FALSE(DecideModule({"NoDocs", {}, {}}, {"", false}).cover);
}
