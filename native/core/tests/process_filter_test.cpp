#include "dotcov/process_filter.h"

#include <gtest/gtest.h>

using dotcov::DecideProcess;

const std::string kDotnet = "/usr/share/dotnet/dotnet";

TEST(ProcessFilter, DeclinesSdkCommands) {
  EXPECT_FALSE(DecideProcess({"dotnet", "test"}, kDotnet).cover);
  EXPECT_FALSE(DecideProcess({"dotnet", "build", "x.sln"}, kDotnet).cover);
  EXPECT_FALSE(DecideProcess({"dotnet"}, kDotnet).cover);
}

TEST(ProcessFilter, DeclinesSdkToolsRunThroughTheMuxer) {
  EXPECT_FALSE(DecideProcess({kDotnet, "/usr/share/dotnet/sdk/10.0.401/MSBuild.dll", "-nodemode:1"}, kDotnet).cover);
  EXPECT_FALSE(
      DecideProcess({kDotnet, "exec", "/usr/share/dotnet/sdk/10.0.401/Roslyn/bincore/VBCSCompiler.dll"}, kDotnet)
          .cover);
  EXPECT_FALSE(DecideProcess({kDotnet, "exec", "--runtimeconfig", "/x/y.json", "/opt/other/vstest.console.dll"},
                             kDotnet)
                   .cover);
}

TEST(ProcessFilter, DeclinesTheSdksCompilerAppHosts) {
  const std::string csc = "/usr/share/dotnet/sdk/10.0.401/Roslyn/bincore/csc";
  EXPECT_FALSE(DecideProcess({csc, "/noconfig", "@/tmp/x.rsp"}, csc).cover);
  const std::string server = "/usr/share/dotnet/sdk/10.0.401/Roslyn/bincore/VBCSCompiler";
  EXPECT_FALSE(DecideProcess({server, "-pipename:x"}, server).cover);
  // An app of the user's that happens to be called csc is covered.
  EXPECT_TRUE(DecideProcess({"./csc"}, "/src/tools/csc/bin/csc").cover);
}

TEST(ProcessFilter, CoversTestHostsAndApps) {
  auto d = DecideProcess({kDotnet, "exec", "--runtimeconfig", "/src/T/bin/T.runtimeconfig.json", "--depsfile",
                          "/src/T/bin/T.deps.json", "/src/T/bin/testhost.dll", "--port", "123"},
                         kDotnet);
  EXPECT_TRUE(d.cover);
  EXPECT_EQ(d.app, "/src/T/bin/testhost.dll");
  EXPECT_TRUE(DecideProcess({"dotnet", "bin/App.dll", "arg"}, kDotnet).cover);
  auto host = DecideProcess({"./App"}, "/src/App/bin/App");
  EXPECT_TRUE(host.cover);
  EXPECT_EQ(host.app, "/src/App/bin/App");
}
