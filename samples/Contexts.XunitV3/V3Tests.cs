using Xunit;

namespace Contexts.XunitV3Tests;

public class Plain
{
    [Fact]
    public async Task AwaitsThenRuns()
    {
        await Task.Delay(10);
        Assert.Equal("nested", Contexts.Work.Nested());
    }

    [Theory]
    [InlineData(1, "odd")]
    [InlineData(2, "even")]
    public void Cases(int n, string expected) => Assert.Equal(expected, Contexts.Work.Parity(n));
}
