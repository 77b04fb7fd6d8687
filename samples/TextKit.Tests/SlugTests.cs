using System.Diagnostics;

namespace TextKit.Tests;

public class SlugTests
{
    [Fact]
    public void MakesSlugs()
    {
        Assert.Equal("hello-world-2", Slug.Make("  Hello, World! 2 "));
    }

    [Fact]
    public void Shouts()
    {
        Assert.Equal("HI!", Slug.Shout("hi"));
    }

    // A test that starts another .NET program: its coverage must be collected too.
    [Fact]
    public void StartsAnotherDotnetProgram()
    {
        string crash = Path.Combine(AppContext.BaseDirectory, "..", "..", "..", "..", "Crash", "bin", "Debug", "net10.0", "Crash.dll");
        var child = Process.Start(new ProcessStartInfo("dotnet", new[] { Path.GetFullPath(crash), "ok" }) { RedirectStandardOutput = true })!;
        string output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        Assert.Equal(0, child.ExitCode);
        Assert.Contains("crash: ok", output);
    }
}
