using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Contexts.MSTestTests;

[TestClass]
public class Plain
{
    [TestMethod]
    public async Task AwaitsThenRuns()
    {
        await Task.Delay(10);
        Assert.AreEqual("nested", Contexts.Work.Nested());
    }

    [DataTestMethod]
    [DataRow(1, "odd")]
    [DataRow(2, "even")]
    public void Cases(int n, string expected) => Assert.AreEqual(expected, Contexts.Work.Parity(n));
}
