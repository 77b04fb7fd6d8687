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
  ModuleFacts calc{"/src/Calc/bin/Calc.dll", "Calc", {"System.Runtime"}, {"/src/Calc/Math.cs"}};
  EXPECT_TRUE(DecideModule(calc, {"/src", false}).cover);
  auto outside = DecideModule(calc, {"/elsewhere", false});
  EXPECT_FALSE(outside.cover);
  EXPECT_NE(outside.reason.find("/src/Calc/Math.cs"), std::string::npos);
  ModuleFacts tests{"/src/T/bin/Calc.Tests.dll", "Calc.Tests", {"xunit.core", "Calc"}, {"/src/Calc.Tests/T.cs"}};
  EXPECT_FALSE(DecideModule(tests, {"/src", false}).cover);
  EXPECT_TRUE(DecideModule(tests, {"/src", true}).cover);
  EXPECT_FALSE(DecideModule({"/x.dll", "NoDocs", {}, {}}, {"", false}).cover);
}

TEST(ModuleFilter, DeterministicBuildsCountWhenTheirSourcesAreHere) {
  // The repository is /repo; dotcov runs in /repo/tests.
  auto exists = [](const std::string& p) { return p == "/repo/src/Calc/Math.cs" || p == "/repo/Math2.cs"; };
  ModuleFilterOptions options{"/repo/tests", false, exists};
  ModuleFacts ci{"/repo/tests/bin/Calc.dll", "Calc", {}, {"/_/src/Calc/Math.cs"}};
  EXPECT_TRUE(DecideModule(ci, options).cover);
  ModuleFacts ci1{"/repo/tests/bin/Calc.dll", "Calc", {}, {"/_1/Math2.cs"}};
  EXPECT_TRUE(DecideModule(ci1, options).cover);
  // A package's deterministic build copied into bin/: its sources are not here.
  ModuleFacts package{"/repo/tests/bin/testhost.dll", "testhost", {}, {"/_/src/testhost.x86/Program.cs"}};
  EXPECT_FALSE(DecideModule(package, options).cover);
  ModuleFacts odd{"/repo/tests/bin/X.dll", "X", {}, {"/_x/Math.cs"}};
  EXPECT_FALSE(DecideModule(odd, options).cover);
}

// PDBs built on Windows record `C:\...` documents; the source root on Windows is a Windows path too. Windows
// compares them with either separator and in any case.
TEST(ModuleFilter, WindowsPathsCompareAsWindowsDoes) {
  EXPECT_TRUE(PathIsUnder("C:\\src\\Sample\\Program.cs", "C:\\src"));
  EXPECT_TRUE(PathIsUnder("C:\\src\\Sample/Program.cs", "c:/SRC/"));  // PathMap's prefix, then '/'
  EXPECT_TRUE(PathIsUnder("C:\\src\\Sample\\Program.cs", "C:\\"));
  EXPECT_TRUE(PathIsUnder("Z:/tmp/win/Platforms.dll", "Z:\\tmp\\win"));
  EXPECT_FALSE(PathIsUnder("C:\\src2\\Program.cs", "C:\\src"));
  EXPECT_FALSE(PathIsUnder("D:\\src\\Program.cs", "C:\\src"));
  EXPECT_FALSE(PathIsUnder("C:\\src\\Program.cs", "/src"));
  EXPECT_FALSE(PathIsUnder("/src/Program.cs", "C:\\src"));
  EXPECT_TRUE(PathIsUnder("/src/a/b.cs", "/src/"));
  // Linux paths stay case-sensitive.
  EXPECT_FALSE(PathIsUnder("/SRC/a.cs", "/src"));

  ModuleFilterOptions options{"C:\\Users\\me\\repo", false, nullptr};
  ModuleFacts built{"C:\\Users\\me\\repo\\bin\\Calc.dll", "Calc", {}, {"c:\\users\\ME\\repo\\src\\Math.cs"}};
  EXPECT_TRUE(DecideModule(built, options).cover);
}

TEST(ModuleFilter, DeterministicBuildsUnderAWindowsSourceRoot) {
  std::vector<std::string> asked;
  auto exists = [&](const std::string& p) {
    asked.push_back(p);
    return p == "C:/repo/src/Calc/Math.cs";
  };
  ModuleFilterOptions options{"C:\\repo\\tests", false, exists};
  ModuleFacts ci{"C:\\repo\\tests\\bin\\Calc.dll", "Calc", {}, {"/_/src/Calc/Math.cs"}};
  EXPECT_TRUE(DecideModule(ci, options).cover);
  EXPECT_EQ(asked, (std::vector<std::string>{"C:/repo/tests/src/Calc/Math.cs", "C:/repo/src/Calc/Math.cs"}));
  asked.clear();
  ModuleFacts package{"C:\\repo\\tests\\bin\\testhost.dll", "testhost", {}, {"/_/src/testhost.x86/Program.cs"}};
  EXPECT_FALSE(DecideModule(package, options).cover);
  // Up to the drive's root, then no further.
  EXPECT_EQ(asked.back(), "C:/src/testhost.x86/Program.cs");
}
