using CompatLib;
using Xunit;

namespace Compat.XunitV3.Tests;

// The same calls as every compatibility row (see ../README.md).
public class LibTests
{
    [Fact]
    public void Grades() {
        Assert.Equal("A", CompatLib.Grades.Letter(95));
        Assert.Equal("60: pass", CompatLib.Grades.Describe(60));
    }

    [Fact]
    public void Stats() {
        Assert.Equal(6, CompatLib.Stats.Sum(new[] { 1, 2, 3 }));
        Assert.Equal(2, CompatLib.Stats.CountEven(new[] { 1, 2, 3, 4 }));
    }
}
