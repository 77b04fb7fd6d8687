using System.Text;
using Calc;

namespace Calc.Tests;

// The branch outcomes these tests take are recorded by the `@branches` marks in ../Calc/Branches.cs.
public class BranchTests
{
    [Fact]
    public void AnyNegativeNeverSeesOnlyTheSecondNegative()
    {
        Assert.True(Branches.AnyNegative(-1, 5));
        Assert.True(Branches.AnyNegative(1, -5));
    }

    [Fact]
    public void NullConditionalAndCoalescing()
    {
        Assert.Equal(3, Branches.LengthOf("abc"));
        Assert.Null(Branches.LengthOf(null));
        Assert.Equal("x", Branches.NameOrDefault("x"));
    }

    [Fact]
    public void DescribeNeverSeesANegative()
    {
        Assert.Equal("zero", Branches.Describe(0));
        Assert.Equal("positive", Branches.Describe(7));
    }

    [Fact]
    public void LoopsOverArrayAndList()
    {
        Assert.Equal(10, Branches.SumPrimes());
        Assert.Equal(2, Branches.CountWords(new List<string> { "a", "bc" }));
    }

    [Fact]
    public void ReadAllDisposesTheReader()
    {
        Assert.Equal(5, Branches.ReadAll(new MemoryStream(Encoding.UTF8.GetBytes("hello"))));
        Assert.Equal(8, Branches.Doubler()(4));
    }

    [Fact]
    public async Task AwaitsThatCompleteAndThatSuspend()
    {
        Assert.Equal(21, await Branches.CompletedAwaitAsync());
        Assert.Equal(42, await Branches.YieldingAwaitAsync());
    }
}
