using Xunit;

namespace Compat.VbLib.Tests;

public class GradesTests
{
    [Fact]
    public void Grades() {
        Assert.Equal("A", global::VbLib.Grades.Letter(95));
        Assert.Equal("pass", global::VbLib.Grades.Letter(60));
    }

    [Fact]
    public void Stats() {
        Assert.Equal(6, global::VbLib.Grades.Sum(new[] { 1, 2, 3 }));
        Assert.Equal(2, global::VbLib.Grades.CountEven(new[] { 1, 2, 3, 4 }));
    }
}
