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

// On Windows the agent gets the image path with '/' (platform.cpp) but the command line as typed: backslashes,
// `dotnet.exe` or `dotnet`, any case.
TEST(ProcessFilter, WindowsNamesAndPaths) {
  const std::string dotnet = "C:/Program Files/dotnet/dotnet.exe";
  EXPECT_FALSE(DecideProcess({"dotnet.exe", "build", "x.sln"}, dotnet).cover);
  EXPECT_FALSE(DecideProcess({"C:\\Program Files\\dotnet\\dotnet.exe", "test"}, "").cover);  // image unknown
  EXPECT_FALSE(DecideProcess({"DOTNET", "test"}, "C:/Program Files/dotnet/DOTNET.EXE").cover);
  EXPECT_FALSE(DecideProcess({"dotnet.exe"}, dotnet).cover);
  // SDK tools through the muxer: under the muxer's own sdk folder, or by name.
  EXPECT_FALSE(DecideProcess({"C:\\Program Files\\dotnet\\dotnet.exe",
                              "C:\\Program Files\\dotnet\\sdk\\10.0.401\\MSBuild.dll", "-nodemode:1"},
                             dotnet)
                   .cover);
  EXPECT_FALSE(DecideProcess({"dotnet.exe", "exec", "D:\\tools\\VSTest.Console.DLL"}, dotnet).cover);
  // The SDK's compiler app hosts.
  const std::string csc = "C:/Program Files/dotnet/sdk/10.0.401/Roslyn/bincore/csc.exe";
  EXPECT_FALSE(DecideProcess({"C:\\Program Files\\dotnet\\sdk\\10.0.401\\Roslyn\\bincore\\csc.exe"}, csc).cover);
  // Test hosts and apps are covered: testhost.exe (an app host), testhost.dll through dotnet.exe, App.exe.
  const std::string testhost = "C:/src/T/bin/Debug/net10.0/testhost.exe";
  auto host = DecideProcess({"C:\\src\\T\\bin\\Debug\\net10.0\\testhost.exe", "--port", "123"}, testhost);
  EXPECT_TRUE(host.cover);
  EXPECT_EQ(host.app, testhost);
  auto muxed = DecideProcess({"dotnet.exe", "exec", "--runtimeconfig", "C:\\src\\T\\bin\\T.runtimeconfig.json",
                              "C:\\src\\T\\bin\\testhost.dll", "--port", "123"},
                             dotnet);
  EXPECT_TRUE(muxed.cover);
  EXPECT_EQ(muxed.app, "C:\\src\\T\\bin\\testhost.dll");
  EXPECT_TRUE(DecideProcess({"App.exe"}, "Z:/tmp/win/App.exe").cover);
  EXPECT_TRUE(DecideProcess({"dotnet.exe", "bin\\App.DLL"}, dotnet).cover);
}
