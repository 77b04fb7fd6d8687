using Linked;

namespace Linked.Tests;

public class GraderTests
{
    [Fact]
    public void AlphaPasses()
    {
        Assert.Equal("pass", AlphaApi.Grade(70));
        Assert.Equal(1, AlphaApi.Clamp(1, 5));
    }

    [Fact]
    public void BetaFails()
    {
        Assert.Equal("fail", BetaApi.Grade(10));
        Assert.Equal(2, BetaApi.Clamp(2, 5));
    }
}
