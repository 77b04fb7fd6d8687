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

TEST(ForeignInstrumentation, CollectorsOnVstestsCommandLine) {
  auto none = [](const std::string&) { return std::string(); };
  // As `dotnet test --collect "Code Coverage;Format=cobertura"` starts vstest.console.
  std::vector<std::string> ms = {"dotnet", "exec", "vstest.console.dll", "Calc.Tests.dll",
                                 "--collect:Code Coverage;Format=cobertura", "--nologo"};
  EXPECT_EQ(CoverageCollectorInArgs(ms, none),
            "Microsoft's code coverage collector (--collect:Code Coverage;Format=cobertura)");
  std::vector<std::string> coverlet = {"vstest.console", "/collect:XPlat Code Coverage"};
  EXPECT_EQ(CoverageCollectorInArgs(coverlet, none), "coverlet's collector (/collect:XPlat Code Coverage)");
  std::vector<std::string> separate = {"vstest.console", "--collect", "code coverage"};
  EXPECT_NE(CoverageCollectorInArgs(separate, none), "");
  std::vector<std::string> blame = {"vstest.console", "--collect:blame", "--testAdapterPath:/x/coverlet.collector/"};
  EXPECT_EQ(CoverageCollectorInArgs(blame, none), "");
  auto settings = [](const std::string& path) {
    return path == "/s.runsettings"
               ? std::string("<DataCollectors><DataCollector friendlyName=\"Code Coverage\" /></DataCollectors>")
               : std::string();
  };
  std::vector<std::string> with_settings = {"vstest.console", "--settings:/s.runsettings"};
  EXPECT_EQ(CoverageCollectorInArgs(with_settings, settings),
            "Microsoft's code coverage collector (DataCollector \"Code Coverage\" in /s.runsettings)");
  std::vector<std::string> other_settings = {"vstest.console", "--settings:/other.runsettings"};
  EXPECT_EQ(CoverageCollectorInArgs(other_settings, settings), "");
}
