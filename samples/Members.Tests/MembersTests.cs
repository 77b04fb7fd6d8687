using Members;

namespace Members.Tests;

public class MembersTests
{
    [Fact]
    public void RecordGetterOnly()
    {
        var p = new Point(3, 4);
        Assert.Equal(3, p.X);
    }

    [Fact]
    public void SettingsReadNotWritten()
    {
        var s = new Settings();
        Assert.Equal(0, s.Count);
        Assert.Equal("none", s.Name);
        s.Limit = 5;
        Assert.Equal(10, s.Start);
        Assert.Equal(8, s.Doubled(4));
        Assert.Equal(1, s.One());
    }

    [Fact]
    public async Task FoldedMembers()
    {
        Assert.Equal(3, Folded.ApplyTwice(1));
        Assert.Equal(3, Folded.WithLocal(2));
        Assert.NotNull(Folded.Countdown(3)); // never enumerated: none of its code runs
        Assert.Equal(2, await Folded.LaterAsync(1));
    }

    [Fact]
    public void GenericMethodWithNamedTuples()
    {
        Assert.Equal(1, Orders.Count(new[] { (Sku: "a", Qty: 2) }, "tag", out var first));
        Assert.Equal(1, first);
    }
}
