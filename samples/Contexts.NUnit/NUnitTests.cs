using NUnit.Framework;

namespace Contexts.NUnitTests;

public class Plain
{
    [Test]
    public async Task AwaitsThenRuns()
    {
        await Task.Delay(10);
        Assert.That(Contexts.Work.Nested(), Is.EqualTo("nested"));
    }

    [TestCase(1, "odd")]
    [TestCase(2, "even")]
    public void Cases(int n, string expected) => Assert.That(Contexts.Work.Parity(n), Is.EqualTo(expected));
}
